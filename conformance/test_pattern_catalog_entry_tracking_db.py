"""pattern-catalog-entry: returns-persistence -> tracking-db (baseline fingerprint).

tracking-db binds every claim baseline to the exact catalog fingerprint. The
shipped catalog is read file by file through the registered schema, its
fingerprint recomputed from the documented rule (files sorted by UTF-8
name; per file: name, NUL, decimal size, NUL, bytes; SHA-256) and handed to
the real ``rvault-db queue claim``; the stored baselines carry it exactly and
pass tracking-db's own deep readers.
"""

from __future__ import annotations

import json
from pathlib import Path

from _returns_producer import claimed_vault
from _support import catalog_fingerprint
from rvault_returns_persistence.catalog import default_catalog_dir, load_catalog
from rvault_tracking_db import api

COVERS = [("pattern-catalog-entry", "returns-persistence", "tracking-db")]


def test_claim_baselines_carry_the_catalog_fingerprint(tmp_path: Path) -> None:
    fingerprint, _ = catalog_fingerprint(default_catalog_dir())
    assert fingerprint == load_catalog().fingerprint
    db, names = claimed_vault(tmp_path)
    database = json.loads(db.read_bytes())
    for talk in database["talks"]:
        claim = talk["_queue_claim"]
        assert claim["adherence_baseline"]["pattern_catalog_fingerprint"] == fingerprint
        assert api.claim_issues(claim, filename=talk["filename"]) == []
        assert api.baseline_issues(claim["adherence_baseline"]) == []
    assert sorted(t["filename"] for t in database["talks"]) == names
