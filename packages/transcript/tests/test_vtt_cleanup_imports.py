"""What ``rvault-transcript vtt-cleanup`` imports, guarded rather than timed.

A VTT import is a small job (issue 32): its start-up is a real share of it.
A fresh interpreter parses a ``vtt-cleanup IN OUT`` command line (which
imports the command's module) and must hold neither lingua (loaded when the
text is classified), nor python-jsonschema, nor the consumers' readers
(``rvault_transcript.api`` and the fetch-result checks: the bundle writer
takes the receipt names from ``sidecars``), nor a media, YouTube or network
library. It then runs the import of a valid file: lingua is loaded by now,
the rest must still be absent (both receipts are accepted by jsonschema-rs;
python-jsonschema is only imported to word a refusal).
``tools/bench_small_jobs.py`` times the job.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rvault_testkit.transcript.languages import caption_lines, webvtt

NEVER_ON_THE_IMPORT = (
    "av",
    "faster_whisper",
    "ctranslate2",
    "numpy",
    "requests",
    "yt_dlp",
    "youtube_transcript_api",
    "jsonschema",
    "rvault_transcript.api",
    "rvault_transcript.fetch",
    "rvault_transcript.fetch_result",
)

_PROBE = """
import contextlib, io, json, sys
from rvault_transcript import cli

cli.build_parser().parse_args(sys.argv[1:])
parsed = sorted(sys.modules)
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = cli.main(sys.argv[1:])
ran = sorted(sys.modules)
print(json.dumps({"code": code, "out": out.getvalue(), "parsed": parsed, "ran": ran}))
"""


def test_vtt_cleanup_loads_lingua_only_to_classify_and_never_the_readers(tmp_path: Path) -> None:
    vtt = tmp_path / "talk.en.vtt"
    vtt.write_text(webvtt(caption_lines("en", 40), header_language="en"), encoding="utf-8")
    argv = ["vtt-cleanup", str(vtt), str(tmp_path / "talk.txt")]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout)
    assert loaded["code"] == 0, loaded["out"]
    assert json.loads(loaded["out"])["language"] == "en"
    assert "rvault_transcript.commands.vtt_cleanup" in loaded["parsed"]
    assert [name for name in ("lingua", *NEVER_ON_THE_IMPORT) if name in loaded["parsed"]] == []
    assert "lingua" in loaded["ran"]
    assert [name for name in NEVER_ON_THE_IMPORT if name in loaded["ran"]] == []
