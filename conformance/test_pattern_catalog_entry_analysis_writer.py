"""pattern-catalog-entry: returns-persistence -> analysis-writer.

The analysis writer recomputes the scoring generation against the current
catalog and its exact fingerprint. It has no catalog reader of its own yet,
so this test proves the contract that reader will stand on: every shipped
entry passes the registered schema when read strictly, the documented
fingerprint rule reproduces the producer's fingerprint, and a copy of the
catalog in another directory (``--catalog DIR``) fingerprints identically.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from _support import catalog_fingerprint
from rvault_returns_persistence.catalog import default_catalog_dir, load_catalog

COVERS = [("pattern-catalog-entry", "returns-persistence", "analysis-writer")]


def test_catalog_reads_and_fingerprints_identically(tmp_path: Path) -> None:
    copy = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    fingerprint, ids = catalog_fingerprint(copy)
    producer = load_catalog()
    assert ids == set(producer.entries)
    assert fingerprint == producer.fingerprint == load_catalog(copy).fingerprint
