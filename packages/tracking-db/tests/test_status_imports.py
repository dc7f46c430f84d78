"""``rvault-db status`` imports only what its path runs.

Status is a small job run many times a day; its imports are most of its
time (tools/bench_small_jobs.py). It imports the plan and preflight modules,
which can check a plan against its schema, but a status never checks one, so
python-jsonschema (about 30 ms of import) must stay out of the process: the
schema helpers import it on first use. Nor does it load the apply protocol
(plans and their writes), which preflight's capture reader brings along
only when a capture is compared; nor the write half of the writer protocol
(staging, locks, transactions, bundles, entries, reports; a read takes only
a snapshot and asks whether a bundle awaits recovery); nor preflight's
artifact probes, the recording probe (ffprobe, subprocess), the adherence
baseline rules, ``logging``, ``zipfile``, ``subprocess`` or
``importlib.resources`` (with tempfile and shutil); nor an owner's reader
that no talk needs (the 20-talk vault has no transcript or manifest on disk,
so neither the transcript reader nor the video manifest validator or PDF
probe is loaded; of the pptx reader only the receipt verdict, not the
schema registry nor the audit recomputation),
while the report still says every reader is installed. A fresh interpreter
runs status on the testkit's realistic 20-talk vault and reports what it
loaded. Not timed: the benchmark measures; this keeps the cuts from
silently coming back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.samples import realistic_database

_PROBE = """
import contextlib, io, json, sys
from rvault_tracking_db.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["status", sys.argv[1], "--format", "json"])
heavy = (
    "jsonschema", "referencing", "rvault_tracking_db.apply_protocol",
    "rvault_contracts.writer.staging", "rvault_contracts.writer.lock",
    "rvault_contracts.writer.transaction", "rvault_contracts.writer.bundle",
    "rvault_contracts.writer.entries", "rvault_contracts.writer.install",
    "rvault_contracts.writer.reports", "concurrent.futures", "logging", "zipfile",
    "rvault_tracking_db.preflight.run", "rvault_tracking_db.preflight.artifacts",
    "rvault_tracking_db.media_probe", "rvault_tracking_db.queue.baseline",
    "rvault_transcript.api", "rvault_video_extraction.manifest_validation",
    "rvault_video_extraction.pdf_probe", "subprocess", "tempfile", "importlib.resources",
    "rvault_contracts.schemas", "rvault_pptx_evidence.audit_match",
    "rvault_tracking_db.queue.batches",
)
print(json.dumps({"code": code, "report": json.loads(out.getvalue()),
                  "loaded": [name for name in heavy if name in sys.modules]}))
"""


def test_status_loads_only_what_its_path_runs(tmp_path: Path) -> None:
    database = tmp_path / "tracking-database.json"
    database.write_bytes(artifact_bytes(realistic_database(20)))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(database)], capture_output=True, text=True, check=True
    )
    probe = json.loads(done.stdout)
    assert probe["code"] == 0
    assert len(probe["report"]["talks"]) == 20
    readers = {"transcript": True, "video_manifest": True, "deck_evidence": True}
    assert probe["report"]["readers"] == readers  # installed, found without importing them
    assert probe["loaded"] == []
