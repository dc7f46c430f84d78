"""Every console script parses ``--version`` and ``--help`` without its heavy imports.

Start-up is most of a small job's time (a 10-minute VTT cleanup, one return
validated), so what each path imports is guarded here rather than timed: a
fresh interpreter per tool builds the parser, answers ``--version`` and
``--help`` and must hold none of :data:`LIGHT_PATH_ABSENT`; then it parses
every subcommand's ``--help`` (which imports that command's module, and
proves its declared one-line help is the one it registers) and must still
hold none of :data:`MEDIA_AND_CLUSTER`, which only running a command may load.
``packages/*/benchmarks`` and ``tools/bench_startup.py`` print the timings.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

TOOLS = {
    "rvault-db": "rvault_tracking_db.cli",
    "rvault-transcript": "rvault_transcript.cli",
    "rvault-pptx": "rvault_pptx_evidence.cli",
    "rvault-video": "rvault_video_extraction.cli",
    "rvault-returns": "rvault_returns_persistence.cli",
    "rvault-analysis": "rvault_analysis_writer.cli",
    "rvault-batch": "rvault_archive_batch.cli",
}

MEDIA_AND_CLUSTER = (
    "av",
    "ctranslate2",
    "cv2",
    "dask",
    "distributed",
    "faster_whisper",
    "lingua",
    "numpy",
    "PIL",
    "pptx",
    "yt_dlp",
    "youtube_transcript_api",
)
LIGHT_PATH_ABSENT = (
    *MEDIA_AND_CLUSTER,
    "jsonschema",
    "orjson",
    "concurrent.futures",
    "rvault_contracts.writer",
    "rvault_contracts.schemas",
)

_PROBE = """
import contextlib, io, json, sys
from importlib import import_module

def parse(parser, argv):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except SystemExit as exited:
            assert exited.code == 0, (argv, exited.code)

cli = import_module(sys.argv[1])
parser = cli.build_parser()
parse(parser, ["--version"])
parse(parser, ["--help"])
light = sorted(sys.modules)
commands = [name for command in cli.COMMANDS for name in command.commands]
for name in commands:
    parse(cli.build_parser(), [name, "--help"])
print(json.dumps({"light": light, "commands": commands, "all": sorted(sys.modules)}))
"""


def _loaded(module: str) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, module], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def _present(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in loaded]


@pytest.mark.parametrize("script", sorted(TOOLS))
def test_version_and_help_stay_light(script: str) -> None:
    loaded = _loaded(TOOLS[script])
    package = TOOLS[script].split(".")[0]
    assert _present(loaded["light"], LIGHT_PATH_ABSENT) == []
    assert [name for name in loaded["light"] if name.startswith(f"{package}.commands.")] == []
    assert loaded["commands"], "a console script declares its subcommands"
    assert _present(loaded["all"], MEDIA_AND_CLUSTER) == []
