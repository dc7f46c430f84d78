"""The public api gives other owners the same catalog and the same verdict as the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import returns_testdata as td
from rvault_returns_persistence import api


def test_api_catalog_matches_the_loader() -> None:
    assert api.load_catalog().fingerprint == td.CATALOG.fingerprint
    assert api.default_catalog_dir() == td.CATALOG_DIR


def test_api_verdict_matches_the_console_script(cli: Any, tmp_path: Path) -> None:
    db, talks = td.standard_vault(tmp_path)
    returns = [td.complete_return(talks[0], tmp_path)]
    report = api.validate_returns(returns, database_path=db)
    batch = td.write_json(tmp_path / "batch.json", returns)
    assert cli("rvault-returns", "validate", batch, "--db", db).json == report
    assert report["ok"] is True
