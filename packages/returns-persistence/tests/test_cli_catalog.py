"""``rvault-returns catalog`` prints exactly the fingerprint the validator uses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rvault_returns_persistence.catalog import default_catalog_dir, load_catalog
from rvault_testkit.plugin import run_cli


def test_default_catalog_summary_matches_the_loader() -> None:
    result = run_cli("rvault-returns", "catalog")
    assert result.returncode == 0, result.stderr
    report = result.json
    catalog = load_catalog()
    assert report["fingerprint"] == catalog.fingerprint
    assert report["entry_count"] == len(catalog.entries) >= 40
    assert report["catalog"] == "default"
    assert [e["id"] for e in report["entries"]] == sorted(catalog.entries)
    assert any(e["positive_only"] for e in report["entries"])
    assert any(e["conditional"] for e in report["entries"])
    assert any(e["pending_owner_review"] for e in report["entries"])


def test_custom_catalog_has_its_own_fingerprint(tmp_path: Path) -> None:
    custom = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), custom)
    first = sorted(custom.glob("*.json"))[0]
    first.unlink()
    report = run_cli("rvault-returns", "catalog", "--catalog", custom).json
    assert report["catalog"] == "custom"
    assert report["entry_count"] == len(load_catalog().entries) - 1
    assert report["fingerprint"] == load_catalog(custom).fingerprint != load_catalog().fingerprint


def test_invalid_catalog_is_refused_with_a_code(tmp_path: Path) -> None:
    custom = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), custom)
    victim = sorted(custom.glob("*.json"))[0]
    victim.write_bytes(b'{"id": "x", "id": "y"}')
    result = run_cli("rvault-returns", "catalog", "--catalog", custom)
    assert result.returncode == 2
    assert result.json["ok"] is False
    assert result.json["error"]["code"]


def test_undecodable_entry_name_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    custom = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), custom)
    (custom / os.fsdecode(b"\xff.json")).write_bytes(b"{}")
    result = run_cli("rvault-returns", "catalog", "--catalog", custom)
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "catalog_unexpected_entry"
    assert result.json["error"]["path"] == "\\xff.json"
