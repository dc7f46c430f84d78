"""The never-overwritten backup bound to the input SHA-256."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from rvault_contracts.writer import WriterError, install, read_snapshot


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


ORIGINAL = b'{"v":1}\n'
BACKUP_NAME = f"db.json.{sha(ORIGINAL)}.bak"


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "db.json"
    path.write_bytes(b'{"v":1}\n')
    return path


def test_backup_holds_the_exact_input_bytes_under_its_sha(target: Path) -> None:
    backups = target.parent / ".backups"
    report = install(target, b'{"v":2}\n', expected=read_snapshot(target), backup_dir=backups)
    expected_name = BACKUP_NAME
    assert report.backup_path == str(backups / expected_name)
    assert (backups / expected_name).read_bytes() == b'{"v":1}\n'
    assert sorted(p.name for p in backups.iterdir()) == [expected_name]
    assert target.read_bytes() == b'{"v":2}\n'


def test_nested_backup_directory_is_created(target: Path) -> None:
    backups = target.parent / "state" / ".backups"
    report = install(target, b"v2", expected=read_snapshot(target), backup_dir=backups)
    assert report.backup_path is not None
    assert Path(report.backup_path).read_bytes() == b'{"v":1}\n'


def test_identical_existing_backup_is_reused_not_rewritten(target: Path, snapshot_file) -> None:
    backups = target.parent / ".backups"
    backups.mkdir()
    existing = backups / BACKUP_NAME
    existing.write_bytes(b'{"v":1}\n')
    before = snapshot_file(existing)
    report = install(target, b"v2", expected=read_snapshot(target), backup_dir=backups)
    assert report.backup_path == str(existing)
    assert snapshot_file(existing) == before
    assert target.read_bytes() == b"v2"


def test_differing_existing_backup_is_never_overwritten(target: Path, snapshot_file) -> None:
    backups = target.parent / ".backups"
    backups.mkdir()
    existing = backups / BACKUP_NAME
    existing.write_bytes(b"tampered")
    backup_before = snapshot_file(existing)
    target_before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=read_snapshot(target), backup_dir=backups)
    assert info.value.code == "backup_conflict"
    assert snapshot_file(existing) == backup_before
    assert snapshot_file(target) == target_before
    assert sorted(p.name for p in backups.iterdir()) == [existing.name]


def test_symlinked_backup_directory_is_refused(target: Path, snapshot_file) -> None:
    elsewhere = target.parent / "elsewhere"
    elsewhere.mkdir()
    (target.parent / ".backups").symlink_to(elsewhere)
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(
            target, b"v2", expected=read_snapshot(target), backup_dir=target.parent / ".backups"
        )
    assert info.value.code == "symlink_refused"
    assert list(elsewhere.iterdir()) == []
    assert snapshot_file(target) == before


def test_symlink_at_backup_name_is_refused(target: Path, snapshot_file) -> None:
    backups = target.parent / ".backups"
    backups.mkdir()
    decoy = target.parent / "decoy"
    decoy.write_bytes(b'{"v":1}\n')
    (backups / BACKUP_NAME).symlink_to(decoy)
    before = snapshot_file(target)
    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=read_snapshot(target), backup_dir=backups)
    assert info.value.code == "symlink_refused"
    assert snapshot_file(target) == before
    assert decoy.read_bytes() == b'{"v":1}\n'


def test_backups_accumulate_one_per_input(target: Path) -> None:
    backups = target.parent / ".backups"
    for version in (2, 3, 4):
        install(target, f"v{version}".encode(), expected=read_snapshot(target), backup_dir=backups)
    names = sorted(p.name for p in backups.iterdir())
    assert names == sorted(f"db.json.{sha(data)}.bak" for data in (b'{"v":1}\n', b"v2", b"v3"))


def test_refused_write_removes_the_backup_it_created(target: Path, snapshot_file) -> None:
    backups = target.parent / ".backups"
    snap = read_snapshot(target)

    def hook(step: str) -> None:
        if step == "before_recheck":
            target.write_bytes(b"concurrent")

    with pytest.raises(WriterError) as info:
        install(target, b"v2", expected=snap, backup_dir=backups, fault=hook)
    assert info.value.code == "input_changed"
    assert target.read_bytes() == b"concurrent"
    assert not backups.exists() or list(backups.iterdir()) == []


def fail_before_replace(step: str) -> None:
    if step == "before_replace":
        raise OSError(5, step)


def test_refused_write_keeps_a_backup_it_reused(target: Path, snapshot_file) -> None:
    backups = target.parent / ".backups"
    backups.mkdir()
    existing = backups / BACKUP_NAME
    existing.write_bytes(b'{"v":1}\n')
    before = snapshot_file(existing)
    with pytest.raises(WriterError):
        install(
            target,
            b"v2",
            expected=read_snapshot(target),
            backup_dir=backups,
            fault=lambda step: (
                (_ for _ in ()).throw(OSError(5, step)) if step == "before_replace" else None
            ),
        )
    assert snapshot_file(existing) == before


def test_no_backup_when_creating(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    backups = tmp_path / ".backups"
    report = install(target, b"x", expected=read_snapshot(target), backup_dir=backups)
    assert report.backup_path is None
    assert not backups.exists()


def test_no_backup_for_a_no_op(target: Path) -> None:
    backups = target.parent / ".backups"
    report = install(target, b'{"v":1}\n', expected=read_snapshot(target), backup_dir=backups)
    assert report.durability_state == "unchanged" and report.backup_path is None
    assert not backups.exists()


def test_refused_write_removes_backup_directories_it_created(target: Path, snapshot_tree) -> None:
    before = snapshot_tree(target.parent)

    with pytest.raises(WriterError):
        install(
            target,
            b"v2",
            expected=read_snapshot(target),
            backup_dir=target.parent / "state" / "deep" / ".backups",
            fault=fail_before_replace,
        )
    after = snapshot_tree(target.parent)
    after.pop("db.json.lock")
    assert after == before
