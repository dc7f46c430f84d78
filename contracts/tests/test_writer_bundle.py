"""install_bundle(): several files of one directory as one transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from rvault_contracts.schemas import load_schema
from rvault_contracts.writer import (
    StagedCandidateConflictError,
    WriterError,
    install_bundle,
    read_snapshot,
)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def report_valid(document: dict) -> bool:
    return Draft202012Validator(load_schema("write-report", 1)).is_valid(document)


def hidden(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith((".staged", ".rollback")))


@pytest.fixture
def talk(tmp_path: Path) -> Path:
    """A talk directory with a transcript and a timing sidecar; no receipt yet."""
    directory = tmp_path / "talk"
    directory.mkdir()
    (directory / "transcript.md").write_bytes(b"old transcript\n")
    (directory / "timing.json").write_bytes(b'{"old":true}\n')
    (directory / "stale.json").write_bytes(b"stale\n")
    return directory


NAMES = ("transcript.md", "timing.json", "quality.json", "stale.json")


def snapshots(directory: Path) -> dict:
    return {name: read_snapshot(directory / name) for name in NAMES}


def changes() -> dict[str, bytes | None]:
    return {
        "transcript.md": b"new transcript\n",
        "timing.json": b'{"new":true}\n',
        "quality.json": b'{"receipt":1}\n',
        "stale.json": None,
    }


def fail_at(step: str) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            raise OSError(5, f"injected at {step}")

    return hook


def test_bundle_installs_every_file(talk: Path) -> None:
    report = install_bundle(talk, changes(), expected=snapshots(talk), lock_target=talk / "talk")
    assert (talk / "transcript.md").read_bytes() == b"new transcript\n"
    assert (talk / "timing.json").read_bytes() == b'{"new":true}\n'
    assert (talk / "quality.json").read_bytes() == b'{"receipt":1}\n'
    assert not (talk / "stale.json").exists()
    assert list(report.files) == ["transcript.md", "timing.json", "quality.json"]
    assert report.files["quality.json"].input_sha256 is None
    assert report.files["timing.json"].input_sha256 == sha(b'{"old":true}\n')
    assert [r.name for r in report.removed] == ["stale.json"]
    assert report.removed[0].input_sha256 == sha(b"stale\n")
    assert report.durability_state == "durable" and report.database_written
    for file_report in report.files.values():
        assert file_report.durability_state == "durable"
        assert report_valid(file_report.to_dict())
    assert report.to_dict()["durability_state"] == "durable"
    assert hidden(talk) == []
    assert (talk / "talk.lock").is_file()


def test_no_op_bundle_keeps_bytes_and_inodes(talk: Path, snapshot_tree) -> None:
    before = snapshot_tree(talk)
    same = {"transcript.md": b"old transcript\n", "quality.json": None}
    report = install_bundle(
        talk, same, expected=snapshots(talk), lock_target=talk / "talk", fault=fail_at("never")
    )
    after = snapshot_tree(talk)
    after.pop("talk.lock")
    assert after == before
    assert report.durability_state == "unchanged" and not report.database_written
    assert report.files["transcript.md"].durability_state == "unchanged"


def test_input_change_refuses_the_whole_bundle(talk: Path, snapshot_tree) -> None:
    expected = snapshots(talk)
    (talk / "timing.json").write_bytes(b'{"edited":true}\n')
    before = snapshot_tree(talk)
    with pytest.raises(WriterError) as info:
        install_bundle(talk, changes(), expected=expected, lock_target=talk / "talk")
    assert info.value.code == "input_changed"
    after = snapshot_tree(talk)
    after.pop("talk.lock")
    assert after == before


PRE_INSTALL = [
    "bundle_after_lock",
    "bundle_after_stage_write",
    "bundle_after_stage_fsync",
    "bundle_before_recheck",
]


@pytest.mark.parametrize("step", PRE_INSTALL)
def test_pre_install_failure_writes_nothing(talk: Path, step: str, snapshot_tree) -> None:
    before = snapshot_tree(talk)
    with pytest.raises(WriterError) as info:
        install_bundle(
            talk,
            changes(),
            expected=snapshots(talk),
            lock_target=talk / "talk",
            fault=fail_at(step),
        )
    assert info.value.code == "io_error"
    after = snapshot_tree(talk)
    after.pop("talk.lock")
    assert after == before


INSTALL_STEPS = [
    f"bundle_{when}_install:{name}"
    for name in ("transcript.md", "timing.json", "quality.json", "stale.json")
    for when in ("before", "after")
]


@pytest.mark.parametrize("step", INSTALL_STEPS)
def test_failure_while_installing_rolls_every_file_back(talk: Path, step: str) -> None:
    prior = {p.name: p.read_bytes() for p in talk.iterdir()}
    with pytest.raises(WriterError) as info:
        install_bundle(
            talk,
            changes(),
            expected=snapshots(talk),
            lock_target=talk / "talk",
            fault=fail_at(step),
        )
    assert info.value.code == "bundle_rolled_back"
    assert info.value.context["failed_step"].endswith(step.split("_install:")[1])
    now = {p.name: p.read_bytes() for p in talk.iterdir() if p.name != "talk.lock"}
    assert now == prior, "every file has its exact prior bytes; the created one is gone"
    assert hidden(talk) == []


def test_rollback_when_a_created_name_is_taken_meanwhile(talk: Path) -> None:
    prior = {p.name: p.read_bytes() for p in talk.iterdir()}

    def hook(step: str) -> None:
        if step == "bundle_before_install:quality.json":
            (talk / "quality.json").write_bytes(b"someone else's receipt")

    with pytest.raises(WriterError) as info:
        install_bundle(
            talk, changes(), expected=snapshots(talk), lock_target=talk / "talk", fault=hook
        )
    assert info.value.code == "bundle_rolled_back"
    assert (talk / "quality.json").read_bytes() == b"someone else's receipt"
    for name in ("transcript.md", "timing.json", "stale.json"):
        assert (talk / name).read_bytes() == prior[name]


def test_swapped_staged_candidate_in_bundle_is_left_untouched(talk: Path, snapshot_tree) -> None:
    before = snapshot_tree(talk)
    planted: dict[str, Path] = {}

    def hook(step: str) -> None:
        if step == "bundle_before_recheck":
            staged = next(
                p
                for p in talk.iterdir()
                if p.name.startswith(".timing.json.") and p.name.endswith(".staged")
            )
            staged.unlink()
            staged.write_bytes(b'{"new":true}\n')
            planted["path"] = staged

    with pytest.raises(StagedCandidateConflictError) as info:
        install_bundle(
            talk, changes(), expected=snapshots(talk), lock_target=talk / "talk", fault=hook
        )
    assert info.value.invariant == "staged_name_identity"
    assert planted["path"].read_bytes() == b'{"new":true}\n'
    after = snapshot_tree(talk)
    after.pop("talk.lock")
    after.pop(planted["path"].name)
    assert after == before


def test_post_install_fsync_failure_is_reported_not_raised(talk: Path) -> None:
    report = install_bundle(
        talk,
        changes(),
        expected=snapshots(talk),
        lock_target=talk / "talk",
        fault=fail_at("bundle_before_dir_fsync"),
    )
    assert report.durability_state == "installed_directory_fsync_failed"
    for file_report in report.files.values():
        assert file_report.durability_state == "installed_directory_fsync_failed"
        assert report_valid(file_report.to_dict())
    assert (talk / "quality.json").read_bytes() == b'{"receipt":1}\n'


def test_post_install_edit_is_reported_as_verification_failure(talk: Path) -> None:
    def hook(step: str) -> None:
        if step == "bundle_before_verify":
            (talk / "timing.json").write_bytes(b"edited by someone ignoring the lock")

    report = install_bundle(
        talk, changes(), expected=snapshots(talk), lock_target=talk / "talk", fault=hook
    )
    assert report.files["timing.json"].durability_state == "installed_verification_failed"
    assert report.files["transcript.md"].durability_state == "durable"
    assert report.durability_state == "installed_verification_failed"


def test_names_must_be_plain_and_have_snapshots(talk: Path) -> None:
    with pytest.raises(WriterError):
        install_bundle(talk, {"../x": b"x"}, expected={}, lock_target=talk / "talk")
    with pytest.raises(ValueError, match="no expected snapshot"):
        install_bundle(talk, {"x.json": b"x"}, expected={}, lock_target=talk / "talk")
    assert not (talk / "x.json").exists()
