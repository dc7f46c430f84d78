"""Batch-transactional replacement: preflight and injected faults during the commit.

A fault at any commit step must leave the speaker's analyses exactly as they
were: same bytes, same inode, same mtime (restored from the recovery
backups in reverse order), a symlink target back as the same link and its
external target never touched, no staged or recovery leftovers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from analysis_testdata import Batch, completed_batch
from rvault_analysis_writer import replacement
from rvault_analysis_writer.write import WriteRequest, write_analyses
from rvault_contracts.cli import Refusal

NAMES = ("2024-01-01-a.md", "2024-02-01-b.md", "2024-03-01-c.md")
A, B, C = NAMES


def state(directory: Path) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for path in sorted(directory.iterdir()):
        st = os.lstat(path)
        if path.is_symlink():
            out[path.name] = ("symlink", str(path.readlink()), st.st_ino)
        else:
            out[path.name] = ("file", path.read_bytes(), st.st_ino, st.st_mtime_ns)
    return out


@pytest.fixture
def batch(tmp_path: Path) -> Batch:
    batch = completed_batch(tmp_path, NAMES)
    (batch.outdir / A).write_bytes(b"analysis a as the speaker knows it\n")
    outside = tmp_path / "shared-notes.md"
    outside.write_bytes(b"someone else's file behind a symlink\n")
    (batch.outdir / B).symlink_to(outside)
    return batch


def fail_at(step: str, error: BaseException) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            raise error

    return hook


STEPS = [
    f"entries_{when}:{name}"
    for name in NAMES
    for when in ("before_install", "after_backup", "after_install")
    if not (when == "after_backup" and name == C)  # C is created: no backup step
]


@pytest.mark.parametrize("step", STEPS)
def test_fault_during_commit_restores_every_analysis(batch: Batch, step: str) -> None:
    before = state(batch.outdir)
    outside = (batch.root / "shared-notes.md").read_bytes()
    request = WriteRequest(
        batch.returns_path, batch.outdir, batch.db, fault=fail_at(step, OSError(5, "injected"))
    )
    with pytest.raises(Refusal) as failed:
        write_analyses(request)
    assert failed.value.code == "bundle_rolled_back", failed.value.message
    assert failed.value.context["failed_step"] == step
    after = state(batch.outdir)
    after.pop(".rvault-analysis.lock", None)
    assert after == before
    assert (batch.root / "shared-notes.md").read_bytes() == outside


def test_permission_error_while_staging_is_unwritable(batch: Batch) -> None:
    before = state(batch.outdir)
    request = WriteRequest(
        batch.returns_path,
        batch.outdir,
        batch.db,
        fault=fail_at("entries_after_stage_write", PermissionError(13, "Permission denied")),
    )
    with pytest.raises(Refusal) as refused:
        write_analyses(request)
    assert refused.value.code == "output_directory_unwritable"
    after = state(batch.outdir)
    after.pop(".rvault-analysis.lock", None)
    assert after == before


def test_entry_changed_after_preflight_is_refused(batch: Batch) -> None:
    def swap(step: str) -> None:
        if step == "entries_after_lock":
            (batch.outdir / A).write_bytes(b"edited by the speaker meanwhile\n")

    with pytest.raises(Refusal) as refused:
        write_analyses(WriteRequest(batch.returns_path, batch.outdir, batch.db, fault=swap))
    assert refused.value.code == "target_changed"
    assert (batch.outdir / A).read_bytes() == b"edited by the speaker meanwhile\n"
    assert (batch.outdir / B).is_symlink()
    assert not (batch.outdir / C).exists()


def test_fold_matches_case_and_normalization() -> None:
    assert replacement.fold("Caf\u00e9.md") == replacement.fold("cafe\u0301.MD")
    assert replacement.fold("STRASSE.md") == replacement.fold("stra\u00dfe.md")
    assert replacement.fold("a.md") != replacement.fold("b.md")


def test_preflight_refuses_hidden_and_path_names(tmp_path: Path) -> None:
    for name in (".hidden.md", "../escape.md", "sub/dir.md"):
        with pytest.raises(Refusal) as refused:
            replacement.preflight(tmp_path, [name])
        assert refused.value.code == "target_name_invalid"


def test_preflight_refuses_two_targets_that_fold_together(tmp_path: Path) -> None:
    with pytest.raises(Refusal) as refused:
        replacement.preflight(tmp_path, ["Talk.md", "talk.md"])
    assert refused.value.code == "target_collision"
    assert list(tmp_path.iterdir()) == []


def test_database_changed_while_rendering_is_refused(
    batch: Batch, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rvault_analysis_writer import write as write_module

    real_render = write_module.render_batch

    def render_then_persist_elsewhere(*args: object, **kwargs: object) -> dict[str, bytes]:
        bodies = real_render(*args, **kwargs)
        batch.db.write_bytes(batch.db.read_bytes() + b" ")
        return bodies

    monkeypatch.setattr(write_module, "render_batch", render_then_persist_elsewhere)
    before = state(batch.outdir)
    with pytest.raises(Refusal) as refused:
        write_analyses(WriteRequest(batch.returns_path, batch.outdir, batch.db))
    assert refused.value.code == "database_changed"
    assert state(batch.outdir) == before
