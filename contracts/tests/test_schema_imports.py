"""python-jsonschema is loaded by the first refusal, not by importing the contracts.

Many commands import an owner module that can validate a document yet, on
their usual path, never do (``rvault-db status``); importing
``rvault_contracts.schemas`` must not cost them python-jsonschema's import
(about a third of a small job's start-up). A fresh interpreter shows both
halves: the import leaves it out, the first ``schema_issues`` of an invalid
document brings it in and still words the violation. (A valid document is
accepted without it: ``test_schema_fast_path.py``.)
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
from rvault_contracts import schemas
before = sorted(m for m in ("jsonschema", "referencing") if m in sys.modules)
registered = sorted(schemas.registry())
issues = schemas.schema_issues("cli-failure", 1, {"ok": True})
after = "jsonschema" in sys.modules
print(json.dumps({"before": before, "after": after, "count": len(registered),
                  "issues": [issue.to_dict() for issue in issues]}))
"""


def test_importing_the_schemas_leaves_jsonschema_to_the_first_validation() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    )
    probe = json.loads(done.stdout)
    assert probe["before"] == []
    assert probe["count"] > 10  # the registry itself is read without the validator
    assert probe["after"] is True
    assert probe["issues"], "an invalid cli-failure document is still refused"
    assert {issue["code"] for issue in probe["issues"]} == {"schema_violation"}
