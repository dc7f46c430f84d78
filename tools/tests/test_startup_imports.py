"""Every console script parses ``--version`` and ``--help`` without its heavy imports.

Start-up is most of a small job's time (a 10-minute VTT cleanup, one return
validated), so what each path imports is guarded here rather than timed: a
fresh interpreter per tool builds the parser, answers ``--version`` and
``--help`` and must hold none of :data:`LIGHT_PATH_ABSENT` (nor the tool's
own code tables); then, in a child forked from that light state for each
subcommand, it parses that subcommand's ``--help`` (which imports that
command's module alone, and proves its declared one-line help is the one it
registers) and must still hold none of :data:`COMMAND_ABSENT`, which only
running a command may load (the light commands of :data:`LIGHT_COMMANDS`
hold none of the light path's either, and those of :data:`WORK_LOADED_WHEN_RUN`
none of :data:`WORK`). A refused command line (no COMMAND) may load only
:data:`REFUSAL_LOADS` beyond the light path: its hint and its encoding.
``tools/bench_startup.py`` prints the timings.
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
# What a command may load only once it runs: media, the cluster, and python-jsonschema
# (it words a refused document; accepting one never needs it).
COMMAND_ABSENT = (*MEDIA_AND_CLUSTER, "jsonschema")
# The fixed cost every console script paid before issue 32 (27 ms of imports): the code
# tables (dataclasses, inspect), canonical JSON and digests (json, hashlib, pathlib with
# urllib.parse), typing, and shutil (argparse's help formatter, with zlib, bz2 and lzma).
FLOOR = (
    "dataclasses",
    "hashlib",
    "inspect",
    "json",
    "pathlib",
    "shutil",
    "typing",
    "rvault_contracts.canonical",
    "rvault_contracts.codes",
)
# What printing a refusal needs: its code's hint (the code tables, with typing for their
# named tuples) and the canonical encoding (json, hashlib).
REFUSAL_LOADS = (
    "hashlib",
    "json",
    "typing",
    "rvault_contracts.canonical",
    "rvault_contracts.codes",
)
# rvault-returns declares the strict JSON reader's codes from its module (a dataclass).
REFUSAL_ALSO_LOADS = {"rvault-returns": ("dataclasses", "inspect")}
LIGHT_PATH_ABSENT = (
    *COMMAND_ABSENT,
    *FLOOR,
    "orjson",
    "concurrent.futures",
    "rvault_contracts.writer",
    "rvault_contracts.schemas",
)
# Commands whose parsing loads nothing of the light path's list but pathlib (their
# arguments are paths); what they run is imported when they run.
LIGHT_COMMANDS = {
    ("rvault-analysis", "site"),
    ("rvault-analysis", "write"),
    ("rvault-batch", "plan"),
    ("rvault-batch", "run"),
}
# What a command's work loads when it starts: writing, validating, digests, the fast JSON
# codec and the code tables. These commands' modules name their work without loading it.
WORK = (
    "hashlib",
    "jsonschema_rs",
    "orjson",
    "rvault_contracts.canonical",
    "rvault_contracts.codes",
    "rvault_contracts.schemas",
    "rvault_contracts.writer",
)
WORK_LOADED_WHEN_RUN = {
    *LIGHT_COMMANDS,
    ("rvault-video", "extract"),
    ("rvault-video", "download"),
    ("rvault-video", "batch-download"),
    ("rvault-pptx", "extract"),
}

_PROBE = """
import contextlib, io, os, sys
from importlib import import_module

def parse(parser, argv):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except SystemExit as exited:
            assert exited.code == 0, (argv, exited.code)

def refused():
    with contextlib.redirect_stdout(io.StringIO()) as out:
        with contextlib.redirect_stderr(io.StringIO()):
            assert cli.main([]) == 2
    assert '"usage_error"' in out.getvalue() and '"hint"' in out.getvalue()

def forked(work):
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        work()
        with os.fdopen(write, "w") as out:
            out.write(" ".join(sorted(sys.modules)))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        loaded = answer.read().split()
    os.wait()
    return loaded

cli = import_module(sys.argv[1])
parser = cli.build_parser()
parse(parser, ["--version"])
parse(parser, ["--help"])
light = sorted(sys.modules)
commands = {
    name: forked(lambda: parse(cli.build_parser(), [name, "--help"]))
    for command in cli.COMMANDS
    for name in command.commands
}
refusal = forked(refused)
import json  # the probe's own, after what it measures
print(json.dumps({"light": light, "commands": commands, "refusal": refusal}))
"""


def _loaded(module: str) -> dict:
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
    assert _present(loaded["light"], (*LIGHT_PATH_ABSENT, f"{package}.codes")) == []
    assert [name for name in loaded["light"] if name.startswith(f"{package}.commands.")] == []
    assert loaded["commands"], "a console script declares its subcommands"
    # A refused command line (no COMMAND) prints its document with the code's hint: it
    # reads the code tables and the JSON encoder, still none of a command's machinery.
    loads = (*REFUSAL_LOADS, *REFUSAL_ALSO_LOADS.get(script, ()))
    absent = tuple(module for module in LIGHT_PATH_ABSENT if module not in loads)
    assert _present(loaded["refusal"], (*absent, f"{package}.commands")) == []
    for name, modules in loaded["commands"].items():
        assert _present(modules, COMMAND_ABSENT) == [], (script, name)
        if (script, name) in LIGHT_COMMANDS:
            light = tuple(module for module in LIGHT_PATH_ABSENT if module != "pathlib")
            assert _present(modules, light) == [], (script, name)
        if (script, name) in WORK_LOADED_WHEN_RUN:
            assert _present(modules, WORK) == [], (script, name)
