"""pattern-catalog-entry: returns-persistence -> analysis-writer.

The analysis writer recomputes the scoring generation against the current
catalog and its exact fingerprint. It has no catalog reader of its own yet,
so this test proves the contract that reader will stand on: every shipped
entry passes the registered schema when read strictly, the documented
fingerprint rule reproduces the producer's fingerprint, and a copy of the
catalog in another directory (``--catalog DIR``) fingerprints identically.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import loads_strict
from rvault_returns_persistence.catalog import default_catalog_dir, load_catalog

COVERS = [("pattern-catalog-entry", "returns-persistence", "analysis-writer")]


def test_catalog_reads_and_fingerprints_identically(tmp_path: Path) -> None:
    copy = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    digest = hashlib.sha256()
    ids = set()
    for path in sorted(copy.glob("*.json"), key=lambda p: p.name.encode("utf-8")):
        data = path.read_bytes()
        entry = loads_strict(data)
        assert schema_issues("pattern-catalog-entry", 1, entry) == [], path.name
        ids.add(entry["id"])
        digest.update(
            path.name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data
        )
    producer = load_catalog()
    assert ids == set(producer.entries)
    assert digest.hexdigest() == producer.fingerprint == load_catalog(copy).fingerprint
