"""install() and read_snapshot(): outcomes, refusals, no-follow opens, reports."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import is_valid, load_schema
from rvault_contracts.writer import (
    FileGeneration,
    Snapshot,
    WriteReport,
    WriterError,
    install,
    lock_path_for,
    read_snapshot,
)


def report_valid(document: dict) -> bool:
    """Validate against write-report v1 alone (it has no $ref), so a half-edited
    registry of another artifact cannot break these tests."""
    return Draft202012Validator(load_schema("write-report", 1)).is_valid(document)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(directory: Path) -> list[str]:
    """Staged or rollback files a transaction failed to clean up."""
    return sorted(p.name for p in directory.iterdir() if p.name.endswith((".staged", ".rollback")))


def test_lock_path_is_a_sibling_named_after_the_target(tmp_path: Path) -> None:
    assert lock_path_for(tmp_path / "db.json") == tmp_path / "db.json.lock"


def test_snapshot_of_missing_file(tmp_path: Path) -> None:
    snap = read_snapshot(tmp_path / "absent.json")
    assert snap.data is None and snap.generation is None
    assert not snap.exists and snap.sha256 is None


def test_snapshot_binds_bytes_and_generation(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b'{"a":1}\n')
    snap = read_snapshot(target)
    st = os.lstat(target)
    assert snap.data == b'{"a":1}\n'
    assert snap.sha256 == sha(b'{"a":1}\n')
    assert snap.generation == FileGeneration(
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
    )


def test_snapshot_refuses_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"{}")
    link = tmp_path / "db.json"
    link.symlink_to(real)
    with pytest.raises(WriterError) as info:
        read_snapshot(link)
    assert info.value.code == "symlink_refused"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_snapshot_refuses_non_regular(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "db.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(WriterError) as info:
        read_snapshot(target)
    assert info.value.code == "not_regular_file"


def test_create_missing_file_is_durable(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    report = install(target, b"new\n", expected=read_snapshot(target))
    assert target.read_bytes() == b"new\n"
    assert report == WriteReport(str(target), "durable", True, None, sha(b"new\n"), (), None)
    assert is_valid("write-report", 1, report.to_dict())
    assert leftovers(tmp_path) == []
    assert lock_path_for(target).is_file(), "the sibling lock file is persistent"


def test_replace_is_durable_and_preserves_mode(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    before_inode = os.lstat(target).st_ino
    report = install(target, b"newer", expected=read_snapshot(target))
    assert target.read_bytes() == b"newer"
    assert os.lstat(target).st_ino != before_inode, "installed by rename of a new inode"
    assert stat.S_IMODE(os.lstat(target).st_mode) == 0o640
    assert report.durability_state == "durable" and report.database_written
    assert report.input_sha256 == sha(b"old") and report.output_sha256 == sha(b"newer")
    assert report_valid(report.to_dict())
    assert leftovers(tmp_path) == []


def test_same_bytes_is_unchanged_and_keeps_inode(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"same")
    before = snapshot_file(target)
    report = install(target, b"same", expected=read_snapshot(target))
    assert report.durability_state == "unchanged" and report.database_written is False
    assert report.input_sha256 == report.output_sha256 == sha(b"same")
    assert snapshot_file(target) == before
    assert report_valid(report.to_dict())


def test_bytes_changed_since_read_is_refused(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    snap = read_snapshot(target)
    target.write_bytes(b"v2")
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(target, b"v3", expected=snap)
    assert info.value.code == "input_changed"
    assert snapshot_file(target) == before
    assert leftovers(tmp_path) == []


def test_generation_change_with_same_bytes_is_refused(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    snap = read_snapshot(target)
    st = os.lstat(target)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=snap)
    assert info.value.code == "input_changed"
    assert snapshot_file(target) == before


def test_same_bytes_inode_replacement_still_conflicts(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    snap = read_snapshot(target)
    other = tmp_path / "other"
    other.write_bytes(b"v1")
    other.replace(target)
    before = snapshot_file(target)
    assert before.inode != snap.generation.inode
    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=snap)
    assert info.value.code == "input_changed"
    assert snapshot_file(target) == before


def test_expected_missing_but_now_exists_is_refused(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    snap = read_snapshot(target)
    target.write_bytes(b"someone else")
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(target, b"mine", expected=snap)
    assert info.value.code == "input_changed"
    assert snapshot_file(target) == before


def test_expected_present_but_now_missing_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    snap = read_snapshot(target)
    target.unlink()
    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=snap)
    assert info.value.code == "input_changed"
    assert not target.exists()
    assert leftovers(tmp_path) == []


def test_symlink_target_is_refused_and_untouched(tmp_path: Path, snapshot_file) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"real")
    target = tmp_path / "db.json"
    target.symlink_to(real)
    real_before = snapshot_file(real)
    # A snapshot read before the link was planted: the file was missing.
    with pytest.raises(WriterError) as info:
        install(target, b"evil", expected=Snapshot(target, None, None))
    assert info.value.code == "symlink_refused"
    assert target.readlink() == real
    assert snapshot_file(real) == real_before
    assert leftovers(tmp_path) == []


def test_symlinked_lock_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    elsewhere = tmp_path / "elsewhere.lock"
    lock_path_for(target).symlink_to(elsewhere)
    with pytest.raises(WriterError) as info:
        install(target, b"x", expected=read_snapshot(target))
    assert info.value.code == "symlink_refused"
    assert not elsewhere.exists() and not target.exists()


def test_directory_at_target_is_not_a_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.mkdir()
    with pytest.raises(WriterError) as info:
        install(target, b"x", expected=Snapshot(target, None, None))
    assert info.value.code == "not_regular_file"
    assert target.is_dir()


def test_vault_root_may_be_reached_through_a_symlink(tmp_path: Path) -> None:
    real_root = tmp_path / "real-vault"
    real_root.mkdir()
    (tmp_path / "vault").symlink_to(real_root)
    target = tmp_path / "vault" / "db.json"
    report = install(target, b"ok", expected=read_snapshot(target))
    assert report.durability_state == "durable"
    assert (real_root / "db.json").read_bytes() == b"ok"


def test_missing_parent_directory_is_io_error(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "db.json"
    with pytest.raises(WriterError) as info:
        install(target, b"x", expected=Snapshot(target, None, None))
    assert info.value.code == "io_error"
    assert not (tmp_path / "missing").exists()


def test_snapshot_without_generation_is_a_programming_error(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    with pytest.raises(ValueError, match="FileGeneration"):
        install(target, b"v2", expected=Snapshot(target, b"v1", None))
    assert target.read_bytes() == b"v1"


def test_writer_error_is_a_cli_refusal_with_stable_code(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    snap = read_snapshot(target)
    target.write_bytes(b"v2")
    with pytest.raises(Refusal) as info:
        install(target, b"v3", expected=snap)
    document = info.value.to_dict()
    assert document["error"]["code"] == "input_changed"
    assert document["error"]["path"] == str(target)
    assert is_valid("cli-failure", 1, document)


def test_empty_bytes_are_a_valid_candidate(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    report = install(target, b"", expected=read_snapshot(target))
    assert target.read_bytes() == b""
    assert report.output_sha256 == sha(b"")
