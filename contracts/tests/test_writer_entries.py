"""replace_entries(): entry-level bundles with same-directory recovery backups."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts.writer import WriterError, read_entry, replace_entries


def fail_at(step: str) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            raise OSError(5, f"injected at {current}")

    return hook


def state(directory: Path) -> dict[str, tuple]:
    """Every entry: kind, bytes or link text, inode and mtime (ctime moves on relink)."""
    out: dict[str, tuple] = {}
    for path in sorted(directory.iterdir()):
        st = os.lstat(path)
        if path.is_symlink():
            out[path.name] = ("symlink", str(path.readlink()), st.st_ino)
        else:
            out[path.name] = ("file", path.read_bytes(), st.st_ino, st.st_mtime_ns)
    return out


@pytest.fixture
def outdir(tmp_path: Path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / "a.md").write_bytes(b"old a\n")
    (directory / "c.md").write_bytes(b"same c\n")
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"outside, never followed\n")
    (directory / "b.md").symlink_to(outside)
    return directory


NAMES = ("a.md", "b.md", "c.md", "d.md")


def bodies() -> dict[str, bytes]:
    return {"a.md": b"new a\n", "b.md": b"new b\n", "c.md": b"same c\n", "d.md": b"new d\n"}


def expected(directory: Path) -> dict:
    return {name: read_entry(directory, name) for name in NAMES}


def test_read_entry_kinds(outdir: Path) -> None:
    assert read_entry(outdir, "a.md").kind == "file"
    assert read_entry(outdir, "b.md").kind == "symlink"
    assert read_entry(outdir, "d.md").kind == "missing"
    (outdir / "dir.md").mkdir()
    with pytest.raises(WriterError) as refused:
        read_entry(outdir, "dir.md")
    assert refused.value.code == "not_regular_file"
    assert refused.value.context["kind"] == "directory"
    os.mkfifo(outdir / "fifo.md")
    with pytest.raises(WriterError) as refused:
        read_entry(outdir, "fifo.md")
    assert refused.value.context["kind"] == "special"


def test_replaces_files_and_symlink_entries_without_following(outdir: Path) -> None:
    outside = outdir.parent / "outside.md"
    report = replace_entries(
        outdir, bodies(), expected=expected(outdir), lock_target=outdir.parent / "lock-target"
    )
    assert (outdir / "a.md").read_bytes() == b"new a\n"
    assert not (outdir / "b.md").is_symlink()
    assert (outdir / "b.md").read_bytes() == b"new b\n"
    assert outside.read_bytes() == b"outside, never followed\n"
    assert (outdir / "d.md").read_bytes() == b"new d\n"
    assert report.files["c.md"].durability_state == "unchanged"
    assert {report.files[n].durability_state for n in ("a.md", "b.md", "d.md")} == {"durable"}
    assert report.files["b.md"].input_sha256 is None
    leftovers = [p.name for p in outdir.iterdir() if p.name.startswith(".")]
    assert leftovers == []


@pytest.mark.parametrize(
    "step",
    [
        "entries_before_install:a.md",
        "entries_after_backup:a.md",
        "entries_after_install:a.md",
        "entries_after_backup:b.md",
        "entries_after_install:b.md",
        "entries_before_install:d.md",
        "entries_after_install:d.md",
    ],
)
def test_failure_during_commit_restores_every_entry_in_reverse(outdir: Path, step: str) -> None:
    before = state(outdir)
    outside = (outdir.parent / "outside.md").read_bytes()
    with pytest.raises(WriterError) as failed:
        replace_entries(
            outdir,
            bodies(),
            expected=expected(outdir),
            lock_target=outdir.parent / "lock-target",
            fault=fail_at(step),
        )
    assert failed.value.code == "bundle_rolled_back", failed.value.message
    assert failed.value.context["failed_step"] == step
    assert state(outdir) == before
    assert (outdir.parent / "outside.md").read_bytes() == outside


@pytest.mark.parametrize("step", ["entries_after_stage_write", "entries_before_recheck"])
def test_failure_before_commit_changes_nothing(outdir: Path, step: str) -> None:
    before = state(outdir)
    with pytest.raises(WriterError):
        replace_entries(
            outdir,
            bodies(),
            expected=expected(outdir),
            lock_target=outdir.parent / "lock-target",
            fault=fail_at(step),
        )
    assert state(outdir) == before


def test_entry_changed_after_read_is_refused(outdir: Path) -> None:
    snapshots = expected(outdir)
    (outdir / "b.md").unlink()
    (outdir / "b.md").symlink_to("elsewhere.md")
    before = state(outdir)
    with pytest.raises(WriterError) as refused:
        replace_entries(
            outdir, bodies(), expected=snapshots, lock_target=outdir.parent / "lock-target"
        )
    assert refused.value.code == "input_changed"
    assert state(outdir) == before


def test_restore_failure_is_reported_as_incomplete(
    outdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace
    calls: list[str] = []

    def flaky_replace(src: str, dst: str, **kwargs: object) -> None:
        calls.append(str(src))
        if str(src).endswith(".recovery"):
            raise OSError(5, "restore refused")
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(WriterError) as failed:
        replace_entries(
            outdir,
            bodies(),
            expected=expected(outdir),
            lock_target=outdir.parent / "lock-target",
            fault=fail_at("entries_after_install:b.md"),
        )
    assert failed.value.code == "bundle_rollback_incomplete"
    assert failed.value.context["problems"]


def test_sigterm_while_staging_removes_every_staged_file(outdir: Path) -> None:
    """SIGTERM (unwinding like Ctrl-C) arrives while worker threads still stage.

    The staged files are collected as the writer's own before the signal is
    raised, so every one is removed: none is left for a later writer's sweep
    (the threads used to finish staging after the main thread had unwound).
    """
    import signal
    import threading
    import time

    from rvault_contracts import cli

    sent = threading.Event()

    def hook(step: str) -> None:
        if step == "entries_after_stage_write":
            if not sent.is_set():
                sent.set()
                os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.3)  # the other names are still being staged

    previous = signal.signal(signal.SIGTERM, cli._unwind)
    try:
        with pytest.raises(KeyboardInterrupt):
            replace_entries(
                outdir,
                bodies(),
                expected=expected(outdir),
                lock_target=outdir.parent / "lock-target",
                fault=hook,
            )
    finally:
        signal.signal(signal.SIGTERM, previous)
    time.sleep(0.5)  # any thread still staging would have created its file by now
    assert sent.is_set()
    assert [p.name for p in outdir.iterdir() if p.name.startswith(".")] == []
    assert (outdir / "a.md").read_bytes() == b"old a\n"
