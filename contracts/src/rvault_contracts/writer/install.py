"""``install``: one file replaced by the writer protocol (the package docstring)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.writer import staging, transaction
from rvault_contracts.writer.backup import _Backup, _write_backup
from rvault_contracts.writer.fs import _check_name, _to_bytes
from rvault_contracts.writer.lock import WriterLock
from rvault_contracts.writer.reports import WriteReport
from rvault_contracts.writer.snapshot import _compare_input, _Current, _read_current
from rvault_contracts.writer.transaction import Transaction
from rvault_contracts.writer.values import FaultHook, Snapshot


def install(
    target: str | os.PathLike[str],
    new_bytes: bytes,
    *,
    expected: Snapshot,
    backup_dir: str | os.PathLike[str] | None = None,
    lock: WriterLock | None = None,
    fault: FaultHook | None = None,
    lock_timeout: float = 30.0,
) -> WriteReport:
    """Atomically replace ``target`` with ``new_bytes`` if it still is ``expected``.

    Raises :class:`WriterError` with nothing installed when a precondition
    fails; once the install syscall succeeded it always returns a
    :class:`WriteReport` (``durable``, ``installed_directory_fsync_failed`` or
    ``installed_verification_failed`` with warnings). ``fault(step)`` is
    called at each step so tests can inject failures and races. Pass ``lock``
    when the caller already holds :func:`writer_lock` for a read-modify-write.
    """
    target = Path(target)
    shown = str(target)
    data = _to_bytes(new_bytes)
    _check_name(target.name, shown)
    one = _InstallOne(target.name, data, expected, staging._Digest(data), backup_dir)
    tx = transaction.open_transaction(target.parent, shown, target, lock, lock_timeout, fault)
    return transaction.run(one, tx)


@dataclass
class _InstallOne:
    """The strategy of :func:`install`: one name, an optional content-addressed backup."""

    name: str
    data: bytes
    expected: Snapshot
    digest: staging._Digest
    backup_dir: str | os.PathLike[str] | None
    prefix: str = ""
    current: _Current | None = None
    staged: staging._Staged | None = None
    backup: _Backup | None = None

    def prepare(self, tx: Transaction) -> list[str] | None:
        tx.swept = staging._sweep_leftovers(tx.dir_fd, lambda base: base == self.name)
        self.current = _read_current(tx.dir_fd, self.name, tx.subject, self.expected.data)
        _compare_input(self.current, self.expected, tx.subject)
        if self.current.data is not None and self.current.data == self.data:
            return None
        return [self.name]

    def unchanged(self, tx: Transaction) -> WriteReport:
        input_sha = self.expected.sha256  # the bytes are equal; the digest is cached
        return WriteReport(
            tx.subject, "unchanged", False, input_sha, self.digest.result(), (), None
        )

    def stage(self, tx: Transaction, pending: list[str]) -> None:
        assert self.current is not None
        self.staged = staging._stage(
            tx.dir_fd,
            self.name,
            self.data,
            self.current.mode,
            "staged",
            tx.subject,
            tx.fault,
            digest=self.digest,
        )
        if self.backup_dir is not None and self.current.data is not None:
            self.backup = _write_backup(Path(self.backup_dir), self.name, self.current.data)
        tx.fault_at("after_backup")

    def recheck(self, tx: Transaction, pending: list[str]) -> None:
        assert self.staged is not None
        tx.fault_at("before_recheck")
        now = _read_current(tx.dir_fd, self.name, tx.subject, self.expected.data)
        _compare_input(now, self.expected, tx.subject)
        staging._verify_staged(self.staged, tx.subject)

    def intent(self, tx: Transaction, pending: list[str]) -> None:
        tx.fault_at("before_replace")

    def commit(self, tx: Transaction, pending: list[str]) -> None:
        assert self.staged is not None and self.current is not None
        if self.current.data is None:
            transaction.link_new(
                tx, self.staged.name, self.name, f"{tx.subject} was created since it was read"
            )
        else:
            os.replace(self.staged.name, self.name, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd)

    def commit_failed(self, tx: Transaction, exc: BaseException) -> None:
        assert self.staged is not None
        if not staging._names_inode(tx.dir_fd, self.name, self.staged.identity):
            transaction.fail_before_install(self, tx, exc)
        # The install syscall ran even though something raised after it: the
        # file is the new generation, so the backup stays and we report that.

    def discard(self) -> None:
        if self.staged is not None:
            staging._discard_staged(self.staged)
        if self.backup is not None:
            self.backup.undo()

    def finish(self, tx: Transaction, pending: list[str]) -> WriteReport:
        assert self.staged is not None and self.current is not None
        warnings: list[str] = [f"leftover_removed: {n}" for n in tx.swept]
        state = _after_install(tx, self.name, self.staged, self.current.data is None, warnings)
        backup_path = None
        if self.backup is not None:
            backup_path = self.backup.path
            self.backup.close()
        warnings.extend(tx.release_warnings())
        return WriteReport(
            tx.subject,
            state,
            True,
            self.expected.sha256,
            self.staged.sha256,
            tuple(warnings),
            backup_path,
        )


def _after_install(
    tx: Transaction, name: str, staged: staging._Staged, created: bool, warnings: list[str]
) -> str:
    """Verification, cleanup and directory fsync; every failure is a warning.

    Returns the transaction.durability state. Catching every ``Exception`` is the point:
    the file is installed, so no failure may look like a pre-install refusal.
    """
    verify_failed = False
    try:
        tx.fault_at("after_replace")
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"after_replace_failed: {exc!r}")
    try:
        tx.fault_at("before_verify")
        problem = staging._verify_installed(tx.dir_fd, name, staged)
        if problem is not None:
            verify_failed = True
            warnings.append(f"installed_verification_failed: {problem}")
    except Exception as exc:  # noqa: BLE001
        verify_failed = True
        warnings.append(f"installed_verification_failed: {exc!r}")
    if created:
        # Created by linkat: the staged name is still a second link of the file.
        try:
            if transaction.unlink_own(tx.dir_fd, staged.name, staged.identity) is False:
                warnings.append("staged_cleanup_skipped: staged name was substituted")
        except Exception as exc:  # noqa: BLE001
            warnings.append(f"staged_cleanup_failed: {exc!r}")
    try:
        staged.close()
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"staged_close_failed: {exc!r}")
    fsync_failure = transaction.fsync_directory(tx, "before_dir_fsync")
    if fsync_failure is not None:
        warnings.append(fsync_failure)
    transaction.close_directory(tx, warnings)
    return transaction.durability(verify_failed, fsync_failure is None)
