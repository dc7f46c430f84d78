"""``install_bundle``: several files of one directory as one transaction.

Also the bundle's recovery entry points (:func:`recover_bundle`,
:func:`settle_pending_bundle`, and :func:`.pending.pending_bundle`, which
lives in its own light module for readers) for tools and readers that meet
a journal an interrupted writer left.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.writer import staging, transaction
from rvault_contracts.writer.fs import (
    _check_name,
    _identity,
    _open_dir,
    _sha256,
    _stat_name,
    _to_bytes,
)
from rvault_contracts.writer.journal import _remove_journal, _settle_journal
from rvault_contracts.writer.lock import WriterLock, _acquire
from rvault_contracts.writer.pending import _journal_name, pending_bundle
from rvault_contracts.writer.reports import BundleReport, RemovedFile, WriteReport
from rvault_contracts.writer.snapshot import _compare_input, _Current, _read_current
from rvault_contracts.writer.transaction import Transaction
from rvault_contracts.writer.values import FaultHook, Snapshot, WriterError


def install_bundle(
    directory: str | os.PathLike[str],
    changes: Mapping[str, bytes | None],
    *,
    expected: Mapping[str, Snapshot],
    lock_target: str | os.PathLike[str],
    fault: FaultHook | None = None,
    lock: WriterLock | None = None,
    lock_timeout: float = 30.0,
) -> BundleReport:
    """Write several files of one directory as one transaction.

    ``changes`` maps a plain file name to its new bytes (``None`` deletes it);
    ``expected`` holds the snapshot each name was read as. Everything is
    staged and fsynced (new candidates plus a rollback copy of every prior
    file), every input and candidate is rechecked, then names are installed
    in the mapping's order. Any failure while installing restores every
    installed name to its exact prior bytes (or removes it if it was missing)
    and raises ``WriterError("bundle_rolled_back")``; if the restoration
    itself fails the code is ``bundle_rollback_incomplete``. After the last
    install, failures are warnings, as for :func:`install`.
    """
    directory = Path(directory)
    new: dict[str, bytes | None] = {}
    for name in changes:
        _check_name(name, str(directory / name))
        if name not in expected:
            raise ValueError(f"no expected snapshot for {name!r}")
        value = changes[name]
        new[name] = None if value is None else _to_bytes(value)
    target = Path(lock_target)
    tx = transaction.open_transaction(
        directory, str(directory), target, lock, lock_timeout, fault, _journal_name(target)
    )
    return transaction.run(_Bundle(list(changes), new, expected), tx)


@dataclass
class _Bundle:
    """The strategy of :func:`install_bundle`: staged candidates plus rollback copies."""

    names: list[str]
    new: dict[str, bytes | None]
    expected: Mapping[str, Snapshot]
    prefix: str = "bundle_"
    currents: dict[str, _Current] = field(default_factory=dict)
    staged: dict[str, staging._Staged] = field(default_factory=dict)
    rollback: dict[str, staging._Staged] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)

    def prepare(self, tx: Transaction) -> list[str] | None:
        settled = _settle_journal(tx.dir_fd, tx.journal, tx.subject) or tx.held.settled
        tx.swept = staging._sweep_leftovers(tx.dir_fd, {*self.names, tx.journal}.__contains__)
        self.currents = {
            name: _read_current(tx.dir_fd, name, tx.shown(name), self.expected[name].data)
            for name in self.names
        }
        for name in self.names:
            try:
                _compare_input(self.currents[name], self.expected[name], tx.shown(name))
            except WriterError as exc:
                if settled is None:
                    raise
                raise WriterError(
                    "input_changed",
                    f"an interrupted bundle transaction was {settled['action']} before this "
                    "write, so the files are not what was read; re-read them and retry",
                    tx.shown(name),
                    recovered=settled,
                ) from exc
        pending = [name for name in self.names if self.new[name] != self.currents[name].data]
        return pending or None

    def unchanged(self, tx: Transaction) -> BundleReport:
        reports = _unchanged_reports(tx.directory, self.names, self.new, self.currents)
        return BundleReport(tx.subject, reports)

    def stage(self, tx: Transaction, pending: list[str]) -> None:
        for name in pending:
            current, data = self.currents[name], self.new[name]
            if data is not None:
                self.staged[name] = staging._stage(
                    tx.dir_fd,
                    name,
                    data,
                    current.mode,
                    "staged",
                    tx.shown(name),
                    tx.fault,
                    "bundle_",
                )
            if current.data is not None:
                self.rollback[name] = staging._stage(
                    tx.dir_fd, name, current.data, current.mode, "rollback", tx.shown(name), None
                )

    def recheck(self, tx: Transaction, pending: list[str]) -> None:
        tx.fault_at("bundle_before_recheck")
        for name in pending:
            now = _read_current(tx.dir_fd, name, tx.shown(name), self.expected[name].data)
            _compare_input(now, self.expected[name], tx.shown(name))
        for name, item in [*self.staged.items(), *self.rollback.items()]:
            staging._verify_staged(item, tx.shown(name))

    def intent(self, tx: Transaction, pending: list[str]) -> None:
        tx.fault_at("bundle_before_journal")
        entries = [
            {
                "name": name,
                "new_sha256": None if self.new[name] is None else self.staged[name].sha256,
                "prior_sha256": None
                if self.currents[name].data is None
                else _sha256(self.currents[name].data),  # type: ignore[arg-type]
                "rollback": self.rollback[name].name if name in self.rollback else None,
                "staged": self.staged[name].name if name in self.staged else None,
            }
            for name in pending
        ]
        transaction.write_intent(tx, entries)
        tx.fault_at("bundle_after_journal")

    def commit(self, tx: Transaction, pending: list[str]) -> None:
        self.pending = pending
        transaction.commit_each(tx, "bundle_", pending, lambda name: self._install(tx, name), [])

    def _install(self, tx: Transaction, name: str) -> None:
        if self.new[name] is None:
            # Delete only the very inode that was rechecked.
            named = _stat_name(tx.dir_fd, name)
            generation = self.expected[name].generation
            if (
                named is None
                or generation is None
                or _identity(named) != (generation.device, generation.inode)
            ):
                raise WriterError(
                    "input_changed", f"{tx.shown(name)} changed before removal", tx.shown(name)
                )
            os.unlink(name, dir_fd=tx.dir_fd)
        elif self.currents[name].data is None:
            transaction.link_new(
                tx, self.staged[name].name, name, f"{tx.shown(name)} was created meanwhile"
            )
        else:
            os.replace(self.staged[name].name, name, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd)

    def commit_failed(self, tx: Transaction, exc: BaseException) -> None:
        # Which names were installed is read from the directory, not from a
        # list an exception may have cut short after the syscall.
        installed = [
            name
            for name in self.pending
            if (
                _stat_name(tx.dir_fd, name) is None
                if self.new[name] is None
                else staging._names_inode(tx.dir_fd, name, self.staged[name].identity)
            )
        ]
        problems = self._rollback(tx, installed)
        transaction.fail_after_rollback(
            self, tx, exc, problems, "every file restored to its prior bytes"
        )

    def _rollback(self, tx: Transaction, installed: list[str]) -> list[str]:
        """Restore every installed name to its exact prior bytes; return problems."""
        problems: list[str] = []
        for name in reversed(installed):
            try:
                if self.currents[name].data is None:
                    if transaction.unlink_own(tx.dir_fd, name, self.staged[name].identity) is False:
                        problems.append(f"{name}: created name was substituted; left in place")
                else:
                    os.replace(
                        self.rollback[name].name, name, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd
                    )
            except OSError as exc:
                problems.append(f"{name}: {exc}")
        try:
            os.fsync(tx.dir_fd)
        except OSError as exc:
            problems.append(f"directory fsync: {exc}")
        for name in installed:
            try:
                now = _read_current(tx.dir_fd, name, name)
            except WriterError as exc:
                problems.append(f"{name}: {exc.message}")
                continue
            if now.data != self.currents[name].data:
                problems.append(f"{name}: prior bytes not restored")
        return problems

    def discard(self) -> None:
        for item in [*self.staged.values(), *self.rollback.values()]:
            staging._discard_staged(item)

    def finish(self, tx: Transaction, pending: list[str]) -> BundleReport:
        """Verify, clean up and fsync after every name is installed; never raises."""
        per_file: dict[str, list[str]] = {name: [] for name in pending}
        warnings: list[str] = [f"leftover_removed: {n}" for n in tx.swept]
        verify_failed = self._verify(tx, pending, per_file, warnings)
        self._clean_copies(tx, per_file)
        fsync_failure = transaction.fsync_directory(tx, "bundle_before_dir_fsync")
        fsync_ok = fsync_failure is None
        if fsync_failure is not None:
            warnings.append(fsync_failure)
            for name in pending:
                per_file[name].append(fsync_failure)
        else:
            # Only a durable new generation may drop the journal that can undo it.
            try:
                tx.fault_at("bundle_before_journal_removal")
                problem = _remove_journal(tx.dir_fd, tx.journal)
            except Exception as exc:  # noqa: BLE001
                problem = f"bundle_journal_cleanup_failed: {exc!r}"
            if problem is not None:
                warnings.append(problem)
        transaction.close_directory(tx, warnings)
        warnings.extend(tx.release_warnings())
        return self._report(tx, pending, per_file, verify_failed, fsync_ok, warnings)

    def _verify(
        self,
        tx: Transaction,
        pending: list[str],
        per_file: dict[str, list[str]],
        warnings: list[str],
    ) -> set[str]:
        verify_failed: set[str] = set()
        try:
            tx.fault_at("bundle_before_verify")
            for name in pending:
                if self.new[name] is None:
                    if _stat_name(tx.dir_fd, name) is not None:
                        verify_failed.add(name)
                        warnings.append(f"installed_verification_failed: {name} reappeared")
                    continue
                problem = staging._verify_installed(tx.dir_fd, name, self.staged[name])
                if problem is not None:
                    verify_failed.add(name)
                    per_file[name].append(f"installed_verification_failed: {problem}")
        except Exception as exc:  # noqa: BLE001 - after install nothing may escape
            for name in pending:
                verify_failed.add(name)
                per_file[name].append(f"installed_verification_failed: {exc!r}")
            warnings.append(f"installed_verification_failed: {exc!r}")
        return verify_failed

    def _clean_copies(self, tx: Transaction, per_file: dict[str, list[str]]) -> None:
        for name, item in self.staged.items():
            if self.currents[name].data is None:
                try:
                    transaction.unlink_own(tx.dir_fd, item.name, item.identity)
                except Exception as exc:  # noqa: BLE001
                    per_file[name].append(f"staged_cleanup_failed: {exc!r}")
            with suppress(OSError):
                item.close()
        for name, item in self.rollback.items():
            if not staging._discard_staged(item):
                per_file[name].append("rollback_copy_cleanup_failed")

    def _report(
        self,
        tx: Transaction,
        pending: list[str],
        per_file: dict[str, list[str]],
        verify_failed: set[str],
        fsync_ok: bool,
        warnings: list[str],
    ) -> BundleReport:
        left = [n for n in self.names if n not in pending]
        reports = _unchanged_reports(tx.directory, left, self.new, self.currents)
        removed: list[RemovedFile] = []
        for name in pending:
            prior = self.currents[name].data
            input_sha = None if prior is None else _sha256(prior)
            data = self.new[name]
            if data is None:
                removed.append(RemovedFile(name, input_sha or ""))
                continue
            state = transaction.durability(name in verify_failed, fsync_ok)
            reports[name] = WriteReport(
                tx.shown(name), state, True, input_sha, _sha256(data), tuple(per_file[name]), None
            )
        ordered = {name: reports[name] for name in self.names if name in reports}
        return BundleReport(tx.subject, ordered, tuple(removed), tuple(warnings))


def _unchanged_reports(
    directory: Path,
    names: list[str],
    new: Mapping[str, bytes | None],
    currents: Mapping[str, _Current],
) -> dict[str, WriteReport]:
    reports: dict[str, WriteReport] = {}
    for name in names:
        data = new[name]
        if data is None:
            continue
        sha = _sha256(data)
        reports[name] = WriteReport(str(directory / name), "unchanged", False, sha, sha, (), None)
    return reports


def recover_bundle(
    directory: str | os.PathLike[str],
    lock_target: str | os.PathLike[str],
    *,
    lock: WriterLock | None = None,
    lock_timeout: float = 30.0,
) -> dict[str, Any] | None:
    """Settle an interrupted bundle transaction now (a ``repair`` entry point).

    Every writer of the bundle does this on its own before writing; this is
    for a tool that only wants the bundle consistent. Returns ``None`` when
    there was nothing to settle.
    """
    target = Path(lock_target)
    held = _acquire(target, lock_timeout) if lock is None else lock
    try:
        dir_fd = _open_dir(Path(directory))
        try:
            settled = _settle_journal(dir_fd, _journal_name(target), str(directory))
        finally:
            os.close(dir_fd)
        return settled or held.settled
    finally:
        if lock is None:
            held.release()


def settle_pending_bundle(
    directory: str | os.PathLike[str],
    lock_target: str | os.PathLike[str],
    *,
    lock_timeout: float = 30.0,
) -> dict[str, Any] | None:
    """Settle an interrupted bundle transaction before a writer reads its inputs.

    A writer judges the files it reads (an existing transcript, a manifest it
    must not downgrade) and binds its install to those snapshots. Had it read
    a torn bundle, the settle inside :func:`install_bundle` would change the
    files under it and the install would be refused as ``input_changed``:
    the first transaction.run after a kill failed. Calling this first (cheap when there
    is no journal: one ``lstat``, no lock file created) settles under the
    bundle's lock, so the writer reads a whole generation and does its job.
    Returns what was done (:func:`recover_bundle`), or ``None``.
    """
    if pending_bundle(lock_target) is None:
        return None
    return recover_bundle(directory, lock_target, lock_timeout=lock_timeout)
