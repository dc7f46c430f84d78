"""pattern-catalog-entry: returns-persistence -> tracking-db (baseline fingerprint).

tracking-db binds every claim baseline to the exact catalog fingerprint. The
shipped catalog is read file by file through the registered schema, its
fingerprint recomputed from the documented rule (files sorted by UTF-8
name; per file: name, NUL, decimal size, NUL, bytes; SHA-256) and handed to
the real ``rvault-db queue claim``; the stored baselines carry it exactly and
pass tracking-db's own deep readers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from _returns_producer import claimed_vault
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import loads_strict
from rvault_returns_persistence.catalog import default_catalog_dir, load_catalog
from rvault_tracking_db import api

COVERS = [("pattern-catalog-entry", "returns-persistence", "tracking-db")]


def independent_fingerprint(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.json"), key=lambda p: p.name.encode("utf-8")):
        data = path.read_bytes()
        assert schema_issues("pattern-catalog-entry", 1, loads_strict(data)) == [], path.name
        digest.update(
            path.name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data
        )
    return digest.hexdigest()


def test_claim_baselines_carry_the_catalog_fingerprint(tmp_path: Path) -> None:
    fingerprint = independent_fingerprint(default_catalog_dir())
    assert fingerprint == load_catalog().fingerprint
    db, names = claimed_vault(tmp_path)
    database = json.loads(db.read_bytes())
    for talk in database["talks"]:
        claim = talk["_queue_claim"]
        assert claim["adherence_baseline"]["pattern_catalog_fingerprint"] == fingerprint
        assert api.claim_issues(claim, filename=talk["filename"]) == []
        assert api.baseline_issues(claim["adherence_baseline"]) == []
    assert sorted(t["filename"] for t in database["talks"]) == names
