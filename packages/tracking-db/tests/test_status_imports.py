"""``rvault-db status`` reads a vault without python-jsonschema.

Status is a small job run many times a day; its start-up is most of its
time (tools/bench_small_jobs.py). It imports the plan and preflight modules,
which can check a plan against its schema, but a status never checks one, so
python-jsonschema (about 30 ms of import) must stay out of the process: the
schema helpers import it on first use. Nor does it load the apply protocol
(plans and their writes), which preflight's capture reader brings along
only when a capture is compared. A fresh interpreter runs status on
the testkit's realistic 20-talk vault and reports what it loaded.
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
heavy = ("jsonschema", "referencing", "rvault_tracking_db.apply_protocol")
print(json.dumps({"code": code, "report": json.loads(out.getvalue()),
                  "loaded": [name for name in heavy if name in sys.modules]}))
"""


def test_status_loads_no_schema_validator_nor_apply_protocol(tmp_path: Path) -> None:
    database = tmp_path / "tracking-database.json"
    database.write_bytes(artifact_bytes(realistic_database(20)))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(database)], capture_output=True, text=True, check=True
    )
    probe = json.loads(done.stdout)
    assert probe["code"] == 0
    assert len(probe["report"]["talks"]) == 20
    assert probe["loaded"] == []
