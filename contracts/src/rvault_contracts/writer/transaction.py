"""One transaction skeleton for ``install``, ``install_bundle`` and ``replace_entries``.

The three writers run the same steps in the same order: take the lock (or
check the caller's), open the directory once, read and compare the inputs,
stage and recheck the candidates, record the intent, install with unwinding
signals deferred, then verify and report without ever raising. What differs
(one file with an optional backup, a bundle with rollback copies and a
journal, directory entries with recovery backups) is a :class:`Strategy`;
how a failure before the install and a failure while installing end is
written here once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn, Protocol, TypeVar

from rvault_contracts import cli
from rvault_contracts.writer.fs import (
    _call_fault,
    _identity,
    _open_dir,
    _pre_install_error,
    _stat_name,
)
from rvault_contracts.writer.journal import BUNDLE_JOURNAL_VERSION, _remove_journal, _write_journal
from rvault_contracts.writer.lock import WriterLock, _acquire, _check_lock
from rvault_contracts.writer.values import FaultHook, WriterError

R = TypeVar("R", covariant=True)


@dataclass
class Transaction:
    """What every step of one transaction shares: lock, directory, window."""

    directory: Path
    #: The path a refusal before the install names (the target, or the bundle directory).
    subject: str
    held: WriterLock
    owned_lock: bool
    dir_fd: int
    fault: FaultHook | None
    journal: str = ""
    journal_written: bool = False
    window: ExitStack = field(default_factory=ExitStack)
    swept: list[str] = field(default_factory=list)
    #: The install step a failure is reported at (``bundle_install:<name>`` ...).
    step: str = ""

    def shown(self, name: str) -> str:
        return str(self.directory / name)

    def fault_at(self, step: str) -> None:
        _call_fault(self.fault, step)

    def close(self) -> None:
        """Close the directory and release an owned lock (every abort path)."""
        with suppress(OSError):
            os.close(self.dir_fd)
        if self.owned_lock:
            self.held.release()

    def release_warnings(self) -> list[str]:
        """Release an owned lock after the install; its problems are warnings."""
        return self.held.release() if self.owned_lock else []


class Strategy(Protocol[R]):
    """What one kind of transaction does at each step of :func:`run`."""

    #: Prefix of the fault step names (``""``, ``"bundle_"``, ``"entries_"``).
    prefix: str

    def prepare(self, tx: Transaction) -> list[str] | None:
        """Read and compare the inputs; the names to install, ``None`` when nothing changes."""

    def unchanged(self, tx: Transaction) -> R:
        """The report of a transaction with nothing to install."""

    def stage(self, tx: Transaction, pending: list[str]) -> None:
        """Stage (write and fsync) every candidate and copy."""

    def recheck(self, tx: Transaction, pending: list[str]) -> None:
        """Compare the inputs again and verify every staged candidate."""

    def intent(self, tx: Transaction, pending: list[str]) -> None:
        """Record what is about to be installed (the bundle journal) before the window."""

    def commit(self, tx: Transaction, pending: list[str]) -> None:
        """The install syscalls, with unwinding signals deferred."""

    def commit_failed(self, tx: Transaction, exc: BaseException) -> None:
        """End a failed commit: raise, or return when the install ran after all."""

    def discard(self) -> None:
        """Remove every staged copy this transaction created (abort)."""

    def finish(self, tx: Transaction, pending: list[str]) -> R:
        """Verify, clean up, fsync and report; never raises."""


def open_transaction(
    directory: Path,
    subject: str,
    lock_target: Path,
    lock: WriterLock | None,
    lock_timeout: float,
    fault: FaultHook | None,
    journal: str = "",
) -> Transaction:
    """Take the lock (or check the caller's is this target's) and open the directory."""
    owned_lock = lock is None
    held = _acquire(lock_target, lock_timeout) if lock is None else lock
    try:
        if not owned_lock:
            lock_dir_fd = _open_dir(lock_target.parent)
            try:
                _check_lock(held, lock_target, lock_dir_fd)
            finally:
                os.close(lock_dir_fd)
        dir_fd = _open_dir(directory)
    except BaseException:
        if owned_lock:
            held.release()
        raise
    return Transaction(directory, subject, held, owned_lock, dir_fd, fault, journal)


def run(strategy: Strategy[R], tx: Transaction) -> R:
    """Run one transaction: before the install a failure leaves nothing behind;
    from the install syscall on the report says what is on disk."""
    try:
        tx.fault_at(strategy.prefix + "after_lock")
        pending = strategy.prepare(tx)
        if pending is None:
            tx.close()
            return strategy.unchanged(tx)
        strategy.stage(tx, pending)
        strategy.recheck(tx, pending)
        strategy.intent(tx, pending)
        # From just before the install syscall an unwinding signal is recorded,
        # not raised: the report must say what is on disk.
        tx.window.enter_context(cli.deferred_interrupts())
    except BaseException as exc:  # noqa: BLE001 - fail_before_install re-raises
        fail_before_install(strategy, tx, exc)
    try:
        strategy.commit(tx, pending)
    except BaseException as exc:  # noqa: BLE001 - commit_failed re-raises or reports
        strategy.commit_failed(tx, exc)
    with tx.window:
        for name in pending:
            cli.note_landed(tx.shown(name))
        report = strategy.finish(tx, pending)
    return report


def fail_before_install(strategy: Strategy[R], tx: Transaction, exc: BaseException) -> NoReturn:
    """Nothing was installed: drop the journal and every copy, release, re-raise."""
    if tx.journal_written:
        _remove_journal(tx.dir_fd, tx.journal)
    strategy.discard()
    tx.close()
    err = _pre_install_error(exc, tx.subject)
    tx.window.close()  # may re-deliver a recorded signal: nothing was installed
    if err is exc:
        raise exc
    raise err from exc


def fail_after_rollback(
    strategy: Strategy[R],
    tx: Transaction,
    exc: BaseException,
    problems: list[str],
    restored: str,
) -> NoReturn:
    """End a failed bundle after its rollback.

    The intent journal is dropped only once every name is back to its old
    generation; with problems it stays, so the next writer of the bundle
    settles it. An interrupt (not an ``Exception``) propagates as itself,
    after cleanup.
    """
    if not problems:
        problem = _remove_journal(tx.dir_fd, tx.journal)
        if problem is not None:
            problems.append(problem)
    strategy.discard()
    tx.close()
    tx.window.close()
    if not isinstance(exc, Exception):
        raise exc
    step = tx.step
    code = "bundle_rollback_incomplete" if problems else "bundle_rolled_back"
    message = f"bundle failed at {step} ({exc}); "
    message += "rollback incomplete: " + "; ".join(problems) if problems else restored
    raise WriterError(
        code, message, tx.subject, failed_step=step, cause=repr(exc), problems=problems
    ) from exc


def write_intent(tx: Transaction, entries: list[dict[str, object]]) -> None:
    """Write the bundle's intent journal (marked written first: a torn write is removed)."""
    tx.journal_written = True
    body = {"entries": entries, "pid": os.getpid(), "version": BUNDLE_JOURNAL_VERSION}
    _write_journal(tx.dir_fd, tx.journal, body, f"{tx.subject}/{tx.journal}")


def commit_each(
    tx: Transaction,
    prefix: str,
    pending: list[str],
    install_one: Callable[[str], None],
    installed: list[str],
) -> None:
    """Install ``pending`` in order with a fault step around each.

    ``installed`` grows as names are installed, so a failure's rollback knows
    how far the commit got.
    """
    for name in pending:
        tx.step = f"{prefix}before_install:{name}"
        tx.fault_at(tx.step)
        tx.step = f"{prefix}install:{name}"
        install_one(name)
        installed.append(name)
        tx.step = f"{prefix}after_install:{name}"
        tx.fault_at(tx.step)


def link_new(tx: Transaction, staged_name: str, name: str, message: str) -> None:
    """Create ``name`` by ``linkat``: it never replaces a name someone created meanwhile."""
    try:
        os.link(
            staged_name, name, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd, follow_symlinks=False
        )
    except FileExistsError:
        raise WriterError("input_changed", message, tx.shown(name)) from None


def unlink_own(dir_fd: int, name: str, identity: tuple[int, int] | None) -> bool | None:
    """Unlink ``name`` only if it is the inode ``identity``.

    ``None``: the name is missing; ``True``: removed; ``False``: another inode
    (substituted) is there and was left in place. OS errors propagate.
    """
    named = _stat_name(dir_fd, name)
    if named is None:
        return None
    if identity is not None and _identity(named) == identity:
        os.unlink(name, dir_fd=dir_fd)
        return True
    return False


def fsync_directory(tx: Transaction, step: str) -> str | None:
    """Fsync the directory after the install; the warning when it failed."""
    try:
        tx.fault_at(step)
        os.fsync(tx.dir_fd)
    except Exception as exc:  # noqa: BLE001 - after install nothing may escape
        return f"installed_directory_fsync_failed: {exc!r}"
    return None


def close_directory(tx: Transaction, warnings: list[str]) -> None:
    try:
        os.close(tx.dir_fd)
    except Exception as exc:  # noqa: BLE001 - after install nothing may escape
        warnings.append(f"directory_close_failed: {exc!r}")


def durability(verify_failed: bool, fsync_ok: bool) -> str:
    """A file's state: verification beats fsync beats durable."""
    if verify_failed:
        return "installed_verification_failed"
    if not fsync_ok:
        return "installed_directory_fsync_failed"
    return "durable"
