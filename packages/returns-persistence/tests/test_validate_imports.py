"""``rvault-returns validate`` of a valid return loads only what its path needs.

Validating one return is a small job a worker runs before every hand-back,
and most of its time is start-up (``tools/bench_small_jobs.py``), so what
the path imports is guarded here rather than timed. A fresh interpreter
validates a valid one-member batch of the standard vault (transcript,
authored slide PDF, catalogued deck) and reports which of :data:`ABSENT` it
loaded: none may be. python-jsonschema words refusals only (a valid catalog,
claim and return are accepted by jsonschema-rs); difflib names the closest
ids of a refusal; the deck re-extraction pool, the owner write modules,
tracking-db's evidence summary and the video manifest validator serve other
paths. pypdf must be loaded: the
slide PDF's page count is proven by the strict probe on every validation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import returns_testdata as td

ABSENT = (
    "jsonschema",
    "referencing",
    "difflib",
    "concurrent.futures",
    "rvault_tracking_db.apply_protocol",
    "rvault_tracking_db.persist_write",
    "rvault_tracking_db.evidence",
    "rvault_tracking_db.evidence_identity",
    "rvault_video_extraction.manifest_validation",
    "rvault_video_extraction.freshness",
)

_PROBE = """
import contextlib, io, json, sys
from rvault_returns_persistence.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["validate", sys.argv[1], "--db", sys.argv[2]])
watched = json.loads(sys.argv[3])
print(json.dumps({"code": code, "report": json.loads(out.getvalue()),
                  "loaded": [name for name in watched if name in sys.modules],
                  "pypdf": "pypdf" in sys.modules}))
"""


def test_validating_a_valid_return_loads_no_refusal_or_write_modules(tmp_path: Path) -> None:
    db, talks = td.standard_vault(tmp_path)
    batch = td.write_json(tmp_path / "batch-returns.json", [td.complete_return(talks[0], tmp_path)])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(batch), str(db), json.dumps(ABSENT)],
        capture_output=True,
        text=True,
        check=True,
    )
    probe = json.loads(done.stdout)
    assert probe["code"] == 0
    assert probe["report"]["ok"] is True and probe["report"]["valid_count"] == 1
    assert probe["loaded"] == []
    assert probe["pypdf"] is True  # the slide PDF was probed, not skipped
