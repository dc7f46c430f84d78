"""Failure injection and races at every step of install().

Before the install syscall a failure must leave the target exactly as it was
(bytes and inode) and clean up only what the writer itself created; after
it, install() must return the right ``installed_*`` state instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from rvault_contracts import writer as writer_module
from rvault_contracts.schemas import load_schema
from rvault_contracts.writer import (
    StagedCandidateConflictError,
    WriterError,
    install,
    read_snapshot,
)

PRE_INSTALL_STEPS = [
    "after_lock",
    "after_stage_write",
    "after_stage_fsync",
    "after_backup",
    "before_recheck",
    "before_replace",
]


class Injected(OSError):
    """An I/O failure raised by the fault hook."""


def report_valid(document: dict) -> bool:
    """Validate against write-report v1 alone (it has no $ref), so a half-edited
    registry of another artifact cannot break these tests."""
    return Draft202012Validator(load_schema("write-report", 1)).is_valid(document)


def fail_at(step: str) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            raise Injected(5, f"injected at {step}")

    return hook


def staged_names(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.endswith(".staged"))


def other_entries(directory: Path, *keep: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "db.json").write_bytes(b'{"v":1}\n')
    return tmp_path


@pytest.mark.parametrize("step", PRE_INSTALL_STEPS)
def test_pre_install_failure_leaves_target_as_it_was(vault: Path, step: str, snapshot_file) -> None:
    target = vault / "db.json"
    snap = read_snapshot(target)
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(
            target, b'{"v":2}\n', expected=snap, backup_dir=vault / ".backups", fault=fail_at(step)
        )
    assert info.value.code == "io_error"
    assert isinstance(info.value.__cause__, Injected)
    assert snapshot_file(target) == before
    assert other_entries(vault, "db.json", "db.json.lock", ".backups") == []
    # A backup created by this failed transaction is removed again.
    backups = vault / ".backups"
    assert not backups.exists() or list(backups.iterdir()) == []


@pytest.mark.parametrize("step", PRE_INSTALL_STEPS)
def test_pre_install_failure_on_create_leaves_nothing(tmp_path: Path, step: str) -> None:
    target = tmp_path / "db.json"
    with pytest.raises(WriterError):
        install(target, b"new", expected=read_snapshot(target), fault=fail_at(step))
    assert other_entries(tmp_path, "db.json.lock") == []


def test_non_io_exception_from_hook_propagates_unchanged(vault: Path, snapshot_file) -> None:
    target = vault / "db.json"
    before = snapshot_file(target)

    def hook(step: str) -> None:
        if step == "before_replace":
            raise KeyError("boom")

    with pytest.raises(KeyError):
        install(target, b"x", expected=read_snapshot(target), fault=hook)
    assert snapshot_file(target) == before
    assert staged_names(vault) == []


def test_after_replace_failure_is_a_warning_not_an_exception(vault: Path) -> None:
    target = vault / "db.json"
    report = install(target, b"v2", expected=read_snapshot(target), fault=fail_at("after_replace"))
    assert report.durability_state == "durable"
    assert report.database_written is True
    assert any(w.startswith("after_replace_failed") for w in report.warnings)
    assert target.read_bytes() == b"v2"
    assert report_valid(report.to_dict())


def test_verification_step_failure_reports_installed_verification_failed(vault: Path) -> None:
    target = vault / "db.json"
    report = install(target, b"v2", expected=read_snapshot(target), fault=fail_at("before_verify"))
    assert report.durability_state == "installed_verification_failed"
    assert report.database_written is True and report.warnings
    assert target.read_bytes() == b"v2"
    assert report_valid(report.to_dict())


def test_directory_fsync_failure_reports_installed_directory_fsync_failed(vault: Path) -> None:
    target = vault / "db.json"
    report = install(
        target, b"v2", expected=read_snapshot(target), fault=fail_at("before_dir_fsync")
    )
    assert report.durability_state == "installed_directory_fsync_failed"
    assert report.database_written is True
    assert any(w.startswith("installed_directory_fsync_failed") for w in report.warnings)
    assert target.read_bytes() == b"v2"
    assert report_valid(report.to_dict())


def test_real_directory_fsync_error_is_caught(vault: Path, monkeypatch) -> None:
    target = vault / "db.json"
    snap = read_snapshot(target)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if Path(f"/proc/self/fd/{fd}").is_dir():
            raise OSError(5, "EIO on directory fsync")
        real_fsync(fd)

    monkeypatch.setattr(writer_module.os, "fsync", fsync)
    report = install(target, b"v2", expected=snap)
    assert report.durability_state == "installed_directory_fsync_failed"
    assert target.read_bytes() == b"v2"


def test_last_moment_edit_after_install_is_reported(vault: Path) -> None:
    target = vault / "db.json"

    def hook(step: str) -> None:
        if step == "before_verify":
            (vault / "intruder").write_bytes(b"intruder")
            (vault / "intruder").replace(target)

    report = install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert report.durability_state == "installed_verification_failed"
    assert report.database_written is True
    assert any("another inode" in w for w in report.warnings)


def test_both_post_install_failures_report_verification_first(vault: Path) -> None:
    target = vault / "db.json"

    def hook(step: str) -> None:
        if step in {"before_verify", "before_dir_fsync"}:
            raise OSError(5, step)

    report = install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert report.durability_state == "installed_verification_failed"
    assert len(report.warnings) == 2


# --------------------------------------------------------------------------- races


def test_target_edit_between_stage_and_recheck_is_refused(vault: Path, snapshot_file) -> None:
    target = vault / "db.json"
    snap = read_snapshot(target)
    state: dict[str, object] = {}

    def hook(step: str) -> None:
        if step == "before_recheck":
            target.write_bytes(b"concurrent edit")
            state["after_edit"] = snapshot_file(target)

    with pytest.raises(WriterError) as info:
        install(target, b"mine", expected=snap, fault=hook)
    assert info.value.code == "input_changed"
    assert snapshot_file(target) == state["after_edit"]
    assert staged_names(vault) == []


def test_timestamp_only_change_before_recheck_is_refused(vault: Path, snapshot_file) -> None:
    target = vault / "db.json"
    snap = read_snapshot(target)

    def hook(step: str) -> None:
        if step == "before_recheck":
            st = os.lstat(target)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1))

    with pytest.raises(WriterError) as info:
        install(target, b"mine", expected=snap, fault=hook)
    assert info.value.code == "input_changed"
    assert target.read_bytes() == b'{"v":1}\n'
    assert os.lstat(target).st_ino == snap.generation.inode


def test_target_created_between_stage_and_install_is_not_clobbered(tmp_path: Path) -> None:
    target = tmp_path / "db.json"

    def hook(step: str) -> None:
        if step == "before_replace":
            target.write_bytes(b"theirs")

    with pytest.raises(WriterError) as info:
        install(target, b"mine", expected=read_snapshot(target), fault=hook)
    assert info.value.code == "input_changed"
    assert target.read_bytes() == b"theirs"
    assert staged_names(tmp_path) == []


def substitute(kind: str, staged: Path, vault: Path) -> Path:
    """Replace the writer's staged name the way an attacker would."""
    if kind == "same_bytes_other_inode":
        data = staged.read_bytes()
        staged.rename(vault / "stolen")
        staged.write_bytes(data)
    elif kind == "symlink":
        staged.rename(vault / "stolen")
        staged.symlink_to(vault / "stolen")
    elif kind == "removed":
        staged.rename(vault / "stolen")
    return staged


@pytest.mark.parametrize(
    ("kind", "invariant"),
    [
        ("same_bytes_other_inode", "staged_name_identity"),
        ("symlink", "staged_name_type"),
        ("removed", "staged_name_missing"),
    ],
)
def test_substituted_staged_name_fails_closed_and_is_left_untouched(
    vault: Path, kind: str, invariant: str, snapshot_file
) -> None:
    target = vault / "db.json"
    before = snapshot_file(target)
    seen: dict[str, object] = {}

    def hook(step: str) -> None:
        if step == "before_recheck":
            (staged,) = staged_names(vault)
            seen["name"] = substitute(kind, staged, vault)
            if kind == "same_bytes_other_inode":
                seen["state"] = snapshot_file(staged)

    with pytest.raises(StagedCandidateConflictError) as info:
        install(target, b'{"v":2}\n', expected=read_snapshot(target), fault=hook)
    assert info.value.code == "staged_candidate_conflict"
    assert info.value.invariant == invariant
    assert info.value.to_dict()["invariant"] == invariant
    assert snapshot_file(target) == before
    name = seen["name"]
    assert isinstance(name, Path)
    if kind == "same_bytes_other_inode":
        assert snapshot_file(name) == seen["state"], "the substituted file is left untouched"
    elif kind == "symlink":
        assert name.is_symlink(), "the substituted link is left untouched"
    assert (vault / "stolen").exists()


def test_extra_hard_link_to_staged_file_is_a_conflict(vault: Path, snapshot_file) -> None:
    target = vault / "db.json"
    before = snapshot_file(target)

    def hook(step: str) -> None:
        if step == "before_recheck":
            (staged,) = staged_names(vault)
            os.link(staged, vault / "second-link")

    with pytest.raises(StagedCandidateConflictError) as info:
        install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert info.value.invariant == "staged_link_count"
    assert snapshot_file(target) == before


def test_staged_bytes_edited_in_place_are_a_conflict(vault: Path, snapshot_file) -> None:
    target = vault / "db.json"
    before = snapshot_file(target)

    def hook(step: str) -> None:
        if step == "before_recheck":
            (staged,) = staged_names(vault)
            with open(staged, "r+b") as handle:
                handle.write(b"X")

    with pytest.raises(StagedCandidateConflictError) as info:
        install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert info.value.invariant == "staged_bytes"
    assert snapshot_file(target) == before
    # Still our own inode under our own name: the writer may remove it.
    assert staged_names(vault) == []


def test_staged_size_change_is_a_conflict(vault: Path) -> None:
    target = vault / "db.json"

    def hook(step: str) -> None:
        if step == "before_recheck":
            (staged,) = staged_names(vault)
            with open(staged, "ab") as handle:
                handle.write(b"tail")

    with pytest.raises(StagedCandidateConflictError) as info:
        install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert info.value.invariant == "staged_size"


def test_stable_staged_timestamp_change_rebaselines(vault: Path) -> None:
    target = vault / "db.json"

    def hook(step: str) -> None:
        if step == "before_recheck":
            (staged,) = staged_names(vault)
            st = os.lstat(staged)
            os.utime(staged, ns=(st.st_atime_ns, st.st_mtime_ns + 5))

    report = install(target, b"v2", expected=read_snapshot(target), fault=hook)
    assert report.durability_state == "durable"
    assert target.read_bytes() == b"v2"


def test_unstable_staged_generation_exhausts_attempts(
    vault: Path, monkeypatch, snapshot_file
) -> None:
    target = vault / "db.json"
    before = snapshot_file(target)
    real_compare = writer_module._stream_equal
    touches: list[int] = []

    def read_and_touch(fd: int, expected: bytes, digest: object = None) -> bool:
        equal = real_compare(fd, expected, digest)
        if str(Path(f"/proc/self/fd/{fd}").readlink()).endswith(".staged"):
            st = os.fstat(fd)
            os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
            touches.append(fd)
        return equal

    monkeypatch.setattr(writer_module, "_stream_equal", read_and_touch)
    with pytest.raises(StagedCandidateConflictError) as info:
        install(target, b"v2", expected=read_snapshot(target))
    assert info.value.invariant == "staged_generation_unstable"
    assert len(touches) == writer_module.STAGED_VERIFY_ATTEMPTS
    assert snapshot_file(target) == before
    assert staged_names(vault) == []
