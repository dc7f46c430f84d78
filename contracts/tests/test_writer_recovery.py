"""Interrupted writers: landed writes report what is on disk, bundles settle, leftovers go.

Each crash is a real one: a forked child is killed with SIGKILL (or sent
SIGTERM) at a named protocol step, and the parent checks what is on disk and
that the next writer run settles it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts import cli
from rvault_contracts.cli import Refusal
from rvault_contracts.retry import RetriesExhausted, retry_bound
from rvault_contracts.writer import (
    WriterError,
    install,
    install_bundle,
    lock_path_for,
    pending_bundle,
    read_snapshot,
    recover_bundle,
    settle_pending_bundle,
    writer_lock,
)

OLD = {"a.txt": b"old a\n", "b.json": b'{"old":true}\n', "c.json": b"old c\n"}
NEW: dict[str, bytes | None] = {"a.txt": b"new a\n", "b.json": b'{"new":true}\n', "c.json": None}
NEW_FILE = "d.json"


def bundle_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bundle"
    directory.mkdir()
    for name, data in OLD.items():
        (directory / name).write_bytes(data)
    return directory


def changes() -> dict[str, bytes | None]:
    return {**NEW, NEW_FILE: b"created\n"}


def state(directory: Path) -> dict[str, bytes | None]:
    names = [*OLD, NEW_FILE]
    return {n: (directory / n).read_bytes() if (directory / n).exists() else None for n in names}


OLD_STATE = {**OLD, NEW_FILE: None}
NEW_STATE = {**NEW, NEW_FILE: b"created\n"}


def run_killed(work: Callable[[], None]) -> int:
    """Run ``work`` in a forked child; return its wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            work()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


def kill_at(step: str, sig: int = signal.SIGKILL) -> Callable[[str], None]:
    def hook(current: str) -> None:
        if current == step:
            os.kill(os.getpid(), sig)

    return hook


def hidden(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


BUNDLE_STEPS = [
    "bundle_after_stage_write",
    "bundle_before_journal",
    "bundle_after_journal",
    "bundle_before_install:a.txt",
    "bundle_after_install:a.txt",
    "bundle_after_install:b.json",
    "bundle_after_install:c.json",
    "bundle_after_install:d.json",
    "bundle_before_verify",
    "bundle_before_dir_fsync",
    "bundle_before_journal_removal",
]


@pytest.mark.parametrize("step", BUNDLE_STEPS)
def test_sigkill_at_every_bundle_step_is_settled_by_the_next_writer(
    tmp_path: Path, step: str
) -> None:
    directory = bundle_dir(tmp_path)
    lock_target = directory / "a.txt"
    expected = {n: read_snapshot(directory / n) for n in changes()}

    def work() -> None:
        install_bundle(
            directory, changes(), expected=expected, lock_target=lock_target, fault=kill_at(step)
        )

    status = run_killed(work)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    # Right after the crash the set may be mixed; the next writer settles it first.
    with writer_lock(lock_target):
        settled = state(directory)
    assert settled in (OLD_STATE, NEW_STATE), settled
    if step in {"bundle_before_verify", "bundle_before_dir_fsync"} or step.endswith("d.json"):
        assert settled == NEW_STATE  # every name had landed: completed, not undone
    assert not (directory / ".a.txt.bundle-journal").exists()
    # Every staged and rollback copy of the dead writer is gone after the next write.
    again = {n: read_snapshot(directory / n) for n in changes()}
    report = install_bundle(directory, changes(), expected=again, lock_target=lock_target)
    assert state(directory) == NEW_STATE
    assert hidden(directory) == [], (hidden(directory), report.warnings)


def test_a_caller_that_read_a_torn_bundle_is_told_to_re_read(tmp_path: Path) -> None:
    directory = bundle_dir(tmp_path)
    lock_target = directory / "a.txt"
    expected = {n: read_snapshot(directory / n) for n in changes()}

    def work() -> None:
        install_bundle(
            directory,
            changes(),
            expected=expected,
            lock_target=lock_target,
            fault=kill_at("bundle_after_install:b.json"),
        )

    run_killed(work)
    torn = {n: read_snapshot(directory / n) for n in changes()}
    assert torn["a.txt"].data == b"new a\n" and torn["c.json"].data == b"old c\n"
    with pytest.raises(WriterError) as refused:
        install_bundle(directory, changes(), expected=torn, lock_target=lock_target)
    assert refused.value.code == "input_changed"
    assert refused.value.context["recovered"]["action"] == "rolled_back"
    assert state(directory) == OLD_STATE


def test_a_writer_that_settles_first_reads_a_whole_generation_and_writes(tmp_path: Path) -> None:
    """``pending_bundle`` tells a reader; ``settle_pending_bundle`` before reading lets the
    next writer do its own job instead of ``input_changed``."""
    directory = bundle_dir(tmp_path)
    lock_target = directory / "a.txt"
    assert pending_bundle(lock_target) is None
    assert settle_pending_bundle(directory, lock_target) is None
    assert not lock_path_for(lock_target).exists()  # nothing pending: no lock file created
    expected = {n: read_snapshot(directory / n) for n in changes()}

    def work() -> None:
        install_bundle(
            directory,
            changes(),
            expected=expected,
            lock_target=lock_target,
            fault=kill_at("bundle_after_install:b.json"),
        )

    run_killed(work)
    assert pending_bundle(lock_target) == directory / ".a.txt.bundle-journal"
    assert state(directory) not in (OLD_STATE, NEW_STATE)  # torn, and readers leave it so
    settled = settle_pending_bundle(directory, lock_target)
    assert settled is not None and settled["action"] == "rolled_back"
    assert pending_bundle(lock_target) is None and state(directory) == OLD_STATE
    fresh = {n: read_snapshot(directory / n) for n in changes()}
    install_bundle(directory, changes(), expected=fresh, lock_target=lock_target)
    assert state(directory) == NEW_STATE and hidden(directory) == []


def test_a_journal_that_matches_neither_side_is_a_conflict_and_touches_nothing(
    tmp_path: Path,
) -> None:
    directory = bundle_dir(tmp_path)
    lock_target = directory / "a.txt"
    expected = {n: read_snapshot(directory / n) for n in changes()}

    def work() -> None:
        install_bundle(
            directory,
            changes(),
            expected=expected,
            lock_target=lock_target,
            fault=kill_at("bundle_after_install:a.txt"),
        )

    run_killed(work)
    (directory / "a.txt").write_bytes(b"edited by hand\n")  # a writer that ignored the lock
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    with pytest.raises(WriterError) as refused:
        recover_bundle(directory, lock_target)
    assert refused.value.code == "bundle_recovery_conflict"
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before


def test_sigterm_between_bundle_renames_completes_the_bundle_in_a_console(tmp_path: Path) -> None:
    directory = bundle_dir(tmp_path)
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from rvault_contracts import cli
        from rvault_contracts.writer import install_bundle, read_snapshot

        directory = Path({str(directory)!r})
        changes = {changes()!r}

        def handler(args):
            expected = {{n: read_snapshot(directory / n) for n in changes}}
            def fault(step):
                if step == "bundle_after_install:a.txt":
                    os.kill(os.getpid(), signal.SIGTERM)
            report = install_bundle(directory, changes, expected=expected,
                                    lock_target=directory / "a.txt", fault=fault)
            cli.emit({{"ok": True, "state": report.durability_state}})
            return 0

        class P:
            def parse_args(self, argv):
                class A: pass
                a = A(); a.handler = handler
                return a

        sys.argv = ["demo"]
        sys.exit(cli.console_main(lambda: P()))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "state": "durable"}
    assert "signal 15 arrived while a write was landing" in done.stderr
    assert state(directory) == NEW_STATE
    assert hidden(directory) == []


def _console_install(db: Path, backups: Path, step: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from rvault_contracts import cli
        from rvault_contracts.writer import install, read_snapshot

        db = Path({str(db)!r})

        def handler(args):
            def fault(step):
                if step == {step!r}:
                    os.kill(os.getpid(), signal.SIGTERM)
            report = install(db, b'{{"v":2}}\\n', expected=read_snapshot(db),
                             backup_dir=Path({str(backups)!r}), fault=fault)
            cli.emit({{"ok": True, **report.to_dict()}})
            return cli.finish(0)

        class P:
            def parse_args(self, argv):
                class A: pass
                a = A(); a.handler = handler
                return a

        sys.argv = ["demo"]
        sys.exit(cli.console_main(lambda: P()))
        """
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


@pytest.mark.parametrize("step", ["after_replace", "before_verify", "before_dir_fsync"])
def test_sigterm_after_the_install_syscall_reports_the_landed_write(
    tmp_path: Path, step: str
) -> None:
    db = tmp_path / "db.json"
    db.write_bytes(b'{"v":1}\n')
    backups = tmp_path / ".backups"
    done = _console_install(db, backups, step)
    assert done.returncode == 0, (done.stdout, done.stderr)
    report = json.loads(done.stdout)
    assert report["database_written"] is True and report["durability_state"] == "durable"
    assert db.read_bytes() == b'{"v":2}\n'
    # The backup the new generation depends on survives the interrupt.
    assert report["backup_path"] is not None
    assert Path(report["backup_path"]).read_bytes() == b'{"v":1}\n'


def test_sigterm_before_the_install_syscall_is_interrupted_and_writes_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.json"
    db.write_bytes(b'{"v":1}\n')
    inode = db.stat().st_ino
    done = _console_install(db, tmp_path / ".backups", "before_recheck")
    assert done.returncode == cli.EXIT_INTERRUPTED
    assert json.loads(done.stdout)["error"]["code"] == "interrupted"
    assert db.read_bytes() == b'{"v":1}\n' and db.stat().st_ino == inode
    assert not (tmp_path / ".backups").exists()


def test_in_process_the_deferred_signal_reaches_its_handler_after_the_install(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.json"
    db.write_bytes(b"one\n")
    backups = tmp_path / ".backups"
    with pytest.raises(KeyboardInterrupt):
        install(
            db,
            b"two\n",
            expected=read_snapshot(db),
            backup_dir=backups,
            fault=kill_at("after_replace", signal.SIGINT),
        )
    assert db.read_bytes() == b"two\n"
    assert [p.read_bytes() for p in backups.iterdir()] == [b"one\n"]
    assert signal.getsignal(signal.SIGINT) is not cli._record


def test_a_dead_writers_staged_copy_is_removed_by_the_next_install(tmp_path: Path) -> None:
    db = tmp_path / "db.json"
    db.write_bytes(b"one\n")

    def work() -> None:
        install(db, b"two\n", expected=read_snapshot(db), fault=kill_at("after_stage_fsync"))

    run_killed(work)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".staged")]
    assert len(leftovers) == 1 and db.read_bytes() == b"one\n"
    # A live writer's name (our own pid) and an old-style name without a pid stay.
    live = tmp_path / f".db.json.{os.getpid()}-{'0' * 16}.staged"
    legacy = tmp_path / f".db.json.{'1' * 16}.staged"
    live.write_bytes(b"x")
    legacy.write_bytes(b"y")
    report = install(db, b"two\n", expected=read_snapshot(db))
    assert report.warnings == (f"leftover_removed: {leftovers[0]}",)
    assert live.exists() and legacy.exists()
    assert not (tmp_path / leftovers[0]).exists()


def test_retry_bound_re_runs_lost_races_and_stops_on_other_refusals() -> None:
    calls: list[int] = []
    delays: list[float] = []

    def attempt(n: int) -> str:
        calls.append(n)
        if n < 3:
            raise Refusal("expected_sha256_mismatch", "someone wrote first", "$")
        return "landed"

    assert retry_bound(attempt, sleep=delays.append, rng=lambda: 1.0) == "landed"
    assert calls == [0, 1, 2, 3] and delays == [0.005, 0.01, 0.02]

    def refused(n: int) -> str:
        raise Refusal("talk_not_found", "no such talk", "$")

    with pytest.raises(Refusal) as other:
        retry_bound(refused, sleep=delays.append)
    assert other.value.code == "talk_not_found"

    def always(n: int) -> str:
        raise Refusal("input_changed", "moved", "db.json")

    with pytest.raises(RetriesExhausted) as exhausted:
        retry_bound(always, attempts=3, sleep=lambda _: None)
    assert exhausted.value.code == "retries_exhausted"
    assert exhausted.value.context == {"attempts": 3, "last_code": "input_changed"}


def test_a_journal_that_cannot_be_installed_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by reliability/test_disk_full.py (renameat=EIO): the staged journal stayed.
    import errno

    from rvault_contracts import writer

    directory = bundle_dir(tmp_path)
    expected = {n: read_snapshot(directory / n) for n in changes()}
    real_replace = os.replace

    def failing_replace(src: str, dst: str, **kwargs: object) -> None:
        if str(dst).endswith(".bundle-journal"):
            raise OSError(errno.EIO, "Input/output error")
        real_replace(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(writer.os, "replace", failing_replace)
    with pytest.raises(WriterError) as refused:
        install_bundle(directory, changes(), expected=expected, lock_target=directory / "a.txt")
    assert refused.value.code == "io_error"
    assert state(directory) == OLD_STATE
    assert hidden(directory) == []


def test_too_many_links_on_the_backup_is_an_io_error_not_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from rvault_contracts import writer

    db = tmp_path / "db.json"
    db.write_bytes(b"one\n")
    real_link = os.link

    def failing_link(src: str, dst: str, **kwargs: object) -> None:
        if str(dst).endswith(".bak"):
            raise OSError(errno.EMLINK, "Too many links")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(writer.os, "link", failing_link)
    with pytest.raises(WriterError) as refused:
        install(db, b"two\n", expected=read_snapshot(db), backup_dir=tmp_path / ".backups")
    assert refused.value.code == "io_error"
    assert db.read_bytes() == b"one\n"


ENTRY_STEPS = [
    "entries_before_recheck",
    "entries_before_install:a.md",
    "entries_after_backup:a.md",
    "entries_after_install:a.md",
    "entries_after_backup:b.md",
    "entries_after_install:b.md",
    "entries_after_install:c.md",
    "entries_before_verify",
    "entries_before_dir_fsync",
]


@pytest.mark.parametrize("step", ENTRY_STEPS)
def test_sigkill_at_every_replace_entries_step_is_settled(tmp_path: Path, step: str) -> None:
    from rvault_contracts.writer import read_entry, replace_entries

    directory = tmp_path / "analyses"
    directory.mkdir()
    (directory / "a.md").write_bytes(b"old a\n")
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"a person's own file\n")
    (directory / "b.md").symlink_to(outside)
    bodies = {"a.md": b"new a\n", "b.md": b"new b\n", "c.md": b"new c\n"}
    lock_target = directory / ".lock-target"

    def entries() -> dict[str, tuple[str, bytes | str | None]]:
        out: dict[str, tuple[str, bytes | str | None]] = {}
        for name in bodies:
            entry = read_entry(directory, name)
            out[name] = (entry.kind, entry.link if entry.kind == "symlink" else entry.data)
        return out

    old = entries()
    new = {name: ("file", data) for name, data in bodies.items()}
    expected = {name: read_entry(directory, name) for name in bodies}

    def work() -> None:
        replace_entries(
            directory, bodies, expected=expected, lock_target=lock_target, fault=kill_at(step)
        )

    status = run_killed(work)
    assert os.WIFSIGNALED(status)
    recover_bundle(directory, lock_target)
    settled = entries()
    assert settled in (old, new), settled
    assert outside.read_bytes() == b"a person's own file\n"  # the link was never followed
    if settled == old:
        assert (directory / "b.md").is_symlink()
    # The next run of the writer sweeps what the dead one staged and lands.
    again = {name: read_entry(directory, name) for name in bodies}
    replace_entries(directory, bodies, expected=again, lock_target=lock_target)
    assert entries() == new
    assert [p.name for p in directory.iterdir() if p.name.startswith(".")] == [".lock-target.lock"]
