"""``write`` and ``site`` write inside the vault, never through a symlink.

Today's failure this pins: ``vault/analyses -> /elsewhere`` made both
commands write (lock file included) into ``/elsewhere``. Every refusal exits
2 with its code and leaves both the vault and the link's target exactly as
they were (``snapshot_tree``: bytes, inodes, timestamps).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from analysis_testdata import Batch, completed_batch
from rvault_testkit.plugin import run_cli
from site_vault import Vault, build_vault

Tree = Callable[[str | os.PathLike[str]], dict[str, Any]]


@pytest.fixture
def batch(tmp_path: Path) -> Batch:
    return completed_batch(tmp_path)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return build_vault(tmp_path_factory.mktemp("placement") / "vault", talks=2, processed=1)


def _write(batch: Batch, outdir: Path, *extra: str) -> Any:
    return run_cli("rvault-analysis", "write", batch.returns_path, outdir, "--db", batch.db, *extra)


def _site(vault: Vault, outdir: Path, *extra: str) -> Any:
    return run_cli("rvault-analysis", "site", outdir, "--db", vault.db, *extra)


def _refused(result: Any, code: str) -> dict[str, Any]:
    assert result.returncode == 2, result.stdout + result.stderr
    document = result.json
    assert document["error"]["code"] == code, document
    assert document["hint"]
    return document


def test_write_refuses_an_analyses_symlink(
    batch: Batch, tmp_path: Path, snapshot_tree: Tree
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    batch.outdir.rmdir()
    batch.outdir.symlink_to(elsewhere, target_is_directory=True)
    before = snapshot_tree(tmp_path)
    document = _refused(_write(batch, batch.outdir), "output_directory_symlink")
    assert document["error"]["path"] == str(batch.outdir)
    assert snapshot_tree(tmp_path) == before
    assert list(elsewhere.iterdir()) == []  # no lock file either
    # --outside-vault never allows writing through the link itself
    _refused(_write(batch, batch.outdir, "--outside-vault"), "output_directory_symlink")
    assert snapshot_tree(tmp_path) == before


def test_write_refuses_a_symlink_on_the_way_down(
    batch: Batch, tmp_path: Path, snapshot_tree: Tree
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (batch.db.parent / "published").symlink_to(elsewhere, target_is_directory=True)
    before = snapshot_tree(tmp_path)
    _refused(_write(batch, batch.db.parent / "published" / "analyses"), "output_directory_symlink")
    assert snapshot_tree(tmp_path) == before


def test_write_outside_the_vault_needs_the_flag(
    batch: Batch, tmp_path: Path, snapshot_tree: Tree
) -> None:
    outside = tmp_path / "report"
    before = snapshot_tree(tmp_path)
    document = _refused(_write(batch, outside), "output_directory_outside_vault")
    assert "--outside-vault" in document["hint"]
    assert snapshot_tree(tmp_path) == before and not outside.exists()
    escaped = batch.db.parent / "analyses" / ".." / ".." / "report"  # lexically outside too
    _refused(_write(batch, escaped), "output_directory_outside_vault")
    done = _write(batch, outside, "--outside-vault")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in outside.iterdir() if not p.name.startswith(".")) == [
        "2024-01-01-a.md",
        "2024-02-01-b.md",
    ]


def test_site_refuses_symlink_and_outside(
    vault: Vault, tmp_path: Path, snapshot_tree: Tree
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = vault.root / f"site-link-{tmp_path.name}"
    link.symlink_to(elsewhere, target_is_directory=True)
    try:
        before = snapshot_tree(elsewhere)
        _refused(_site(vault, link), "output_directory_symlink")
        _refused(_site(vault, link, "--outside-vault"), "output_directory_symlink")
        assert snapshot_tree(elsewhere) == before
    finally:
        link.unlink()
    outside = tmp_path / "site"
    _refused(_site(vault, outside), "output_directory_outside_vault")
    assert not outside.exists()
    done = _site(vault, outside, "--outside-vault")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (outside / "index.html").is_file()


def test_site_inside_the_vault_is_the_default(vault: Vault, tmp_path: Path) -> None:
    inside = vault.root / f"report-{tmp_path.name}"
    done = _site(vault, inside)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (inside / "index.html").is_file()
