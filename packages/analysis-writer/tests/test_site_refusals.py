"""Refused site writes change nothing; a failure mid-commit restores everything."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rvault_analysis_writer.site.build import SiteRequest, render_site
from rvault_analysis_writer.site.output import install_site
from rvault_contracts.writer import WriterError
from rvault_testkit.plugin import run_cli
from site_vault import Vault, build_vault

Tree = Callable[[str | os.PathLike[str]], dict[str, Any]]


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return build_vault(tmp_path_factory.mktemp("refusals") / "vault", talks=4, processed=2)


@pytest.fixture
def old_site(vault: Vault, tmp_path: Path) -> Path:
    outdir = tmp_path / "site"
    result = run_cli("rvault-analysis", "site", outdir, "--db", vault.db, "--outside-vault")
    assert result.returncode == 0, result.stderr
    return outdir


def refused(vault: Vault, outdir: Path, code: str, *extra: str | Path) -> dict[str, Any]:
    result = run_cli("rvault-analysis", "site", outdir, "--db", vault.db, "--outside-vault", *extra)
    assert result.returncode == 2, result.stdout + result.stderr
    document = result.json
    assert document["ok"] is False
    assert document["error"]["code"] == code, document
    return document


def test_missing_database_creates_nothing(vault: Vault, tmp_path: Path) -> None:
    result = run_cli("rvault-analysis", "site", tmp_path / "site", "--db", tmp_path / "nope.json")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "database_missing"
    assert list(tmp_path.iterdir()) == []


def test_invalid_database_leaves_the_old_site(
    vault: Vault, old_site: Path, tmp_path: Path, snapshot_tree: Tree
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"schema_version": 1, "talks": [}')
    before = snapshot_tree(old_site)
    result = run_cli("rvault-analysis", "site", old_site, "--outside-vault", "--db", broken)
    assert result.returncode == 2
    assert snapshot_tree(old_site) == before


def test_unknown_catalog_is_refused(
    vault: Vault, old_site: Path, tmp_path: Path, snapshot_tree: Tree
) -> None:
    before = snapshot_tree(old_site)
    result = run_cli(
        "rvault-analysis",
        "site",
        old_site,
        "--outside-vault",
        "--db",
        vault.db,
        "--catalog",
        tmp_path / "none",
    )
    assert result.returncode == 2
    assert result.json["error"]["code"].startswith("catalog_")
    assert snapshot_tree(old_site) == before


def test_non_site_directory_is_not_mixed_into(
    vault: Vault, tmp_path: Path, snapshot_tree: Tree
) -> None:
    outdir = tmp_path / "mine"
    outdir.mkdir()
    (outdir / "notes.txt").write_text("my own notes\n")
    before = snapshot_tree(outdir)
    refused(vault, outdir, "output_directory_not_site")
    assert snapshot_tree(outdir) == before


def test_case_fold_collision_is_refused(vault: Vault, old_site: Path, snapshot_tree: Tree) -> None:
    (old_site / "index.html").rename(old_site / "INDEX.html")
    before = snapshot_tree(old_site)
    document = refused(vault, old_site, "target_collision")
    assert document["existing"] == "INDEX.html"
    assert snapshot_tree(old_site) == before


def test_directory_at_a_target_is_refused(
    vault: Vault, old_site: Path, snapshot_tree: Tree
) -> None:
    (old_site / "style.css").unlink()
    (old_site / "style.css").mkdir()
    before = snapshot_tree(old_site)
    refused(vault, old_site, "target_is_directory")
    assert snapshot_tree(old_site) == before


def test_missing_parent_is_refused(vault: Vault, tmp_path: Path) -> None:
    refused(vault, tmp_path / "a" / "b", "output_directory_missing")
    assert not (tmp_path / "a").exists()


def test_symlink_target_is_replaced_as_an_entry(
    vault: Vault, old_site: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.html"
    outside.write_text("not the site's\n")
    (old_site / "index.html").unlink()
    (old_site / "index.html").symlink_to(outside)
    result = run_cli("rvault-analysis", "site", old_site, "--outside-vault", "--db", vault.db)
    assert result.returncode == 0, result.stderr
    assert not (old_site / "index.html").is_symlink()
    assert (old_site / "index.html").read_text().startswith("<!DOCTYPE html>")
    assert outside.read_text() == "not the site's\n"
    assert "index.html" in result.json["written"]


def test_fault_mid_commit_restores_every_file(
    vault: Vault, old_site: Path, snapshot_tree: Tree
) -> None:
    """A changed database re-renders every page; a failure after some installs undoes them."""
    database = json.loads(vault.db.read_text())
    database["talks"][0]["title"] = "A new title"
    changed = vault.db.with_name("changed.json")
    changed.write_text(json.dumps(database))
    bodies, _ = render_site(SiteRequest(old_site, changed, vault_root=vault.root))
    before = snapshot_tree(old_site)
    installs: list[str] = []

    def fault(step: str) -> None:
        if step.startswith("entries_after_install:"):
            installs.append(step)
            if len(installs) == 3:
                raise OSError("disk full (injected)")

    with pytest.raises(WriterError) as raised:
        install_site(old_site, bodies, fault=fault)
    assert raised.value.code == "bundle_rolled_back"
    assert len(installs) == 3
    # Same names, bytes, inodes and mtimes; only ctime moves (the recovery link
    # changed the link count, see replace_entries).
    assert _without_ctime(snapshot_tree(old_site)) == _without_ctime(before)


def _without_ctime(tree: dict[str, Any]) -> dict[str, Any]:
    return {
        name: state if isinstance(state, str) else replace(state, ctime_ns=0)
        for name, state in tree.items()
    }


def test_removed_talk_pages_are_reported_stale(
    vault: Vault, old_site: Path, tmp_path: Path
) -> None:
    database = json.loads(vault.db.read_text())
    gone = database["talks"].pop(0)
    smaller = vault.root / "smaller.json"
    smaller.write_text(json.dumps(database))
    result = run_cli(
        "rvault-analysis",
        "site",
        old_site,
        "--outside-vault",
        "--db",
        smaller,
        "--vault-root",
        vault.root,
    )
    assert result.returncode == 0, result.stderr
    stale = result.json["stale"]
    assert any(name.startswith(f"talk-{gone['filename'][:10]}") for name in stale)
    assert all((old_site / name).exists() for name in stale)  # reported, never deleted


def test_a_broken_ledger_is_set_aside_for_its_talk_only(vault: Vault, tmp_path: Path) -> None:
    database = json.loads(vault.db.read_text())
    broken_talk = database["talks"][1]
    broken_talk["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "maybe"
    broken = vault.db.with_name("broken-ledger.json")
    broken.write_text(json.dumps(database))
    outdir = tmp_path / "site"
    result = run_cli(
        "rvault-analysis", "site", outdir, "--outside-vault", "--db", broken,
        "--vault-root", vault.root,
    )  # fmt: skip
    # One bad record never locks the vault (the owner read's per-talk rule): the site is
    # built, the broken talk's page says why its findings are missing and how to requeue.
    assert result.returncode == 0, result.stdout + result.stderr
    pages = {p.name: p.read_text(encoding="utf-8") for p in outdir.glob("talk-*.html")}
    name = f"talk-{broken_talk['filename'].removesuffix('.md')}.html"
    page = pages.pop(name)
    assert "pattern_observations_invalid" in page and "rvault-db queue normalize" in page
    assert '$["talks"][1]["pattern_observations"]["pattern_outcomes"]' in html.unescape(page)
    assert "No outcome matrix" in page  # the broken ledger is not drawn
    assert pages and all("pattern_observations_invalid" not in other for other in pages.values())
