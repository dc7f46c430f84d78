"""``replace_entries``: directory entries a person owns, replaced as one transaction.

A target may be missing, a regular file or a symlink; a symlink is replaced
as a directory entry, never followed. Each existing target is linked to a
same-directory recovery backup before it is replaced, so a rollback puts back
the very inode (or symlink).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from rvault_contracts import cli
from rvault_contracts.writer import staging, transaction
from rvault_contracts.writer.fs import (
    _check_name,
    _identity,
    _open_dir,
    _os_error,
    _sha256,
    _stat_name,
    _to_bytes,
)
from rvault_contracts.writer.journal import _remove_journal, _settle_journal
from rvault_contracts.writer.lock import WriterLock
from rvault_contracts.writer.pending import _journal_name
from rvault_contracts.writer.reports import BundleReport, WriteReport
from rvault_contracts.writer.snapshot import _read_current
from rvault_contracts.writer.transaction import Transaction
from rvault_contracts.writer.values import FaultHook, FileGeneration, WriterError

ENTRY_KINDS = ("missing", "file", "symlink")

#: Threads that stage bodies and remove recovery backups (I/O bound, GIL released).
_ENTRY_THREADS = 8


@dataclass(frozen=True)
class EntrySnapshot:
    """One directory entry as a batch writer read it, never following a symlink.

    ``kind`` is ``missing``, ``file`` (``data`` and ``mode`` set) or
    ``symlink`` (``link`` is its text). ``generation`` is the entry's own
    ``lstat`` generation. Directories and special files are refused when
    read, so they can never be a target.
    """

    name: str
    kind: str
    data: bytes | None = None
    link: str | None = None
    generation: FileGeneration | None = None
    mode: int | None = None

    @property
    def exists(self) -> bool:
        return self.kind != "missing"


def _read_entry_at(dir_fd: int, name: str, shown: str) -> EntrySnapshot:
    try:
        st = _stat_name(dir_fd, name)
        if st is None:
            return EntrySnapshot(name, "missing")
        if stat.S_ISLNK(st.st_mode):
            link = os.readlink(name, dir_fd=dir_fd)
            after = _stat_name(dir_fd, name)
            generation = FileGeneration.from_stat(st)
            if after is None or FileGeneration.from_stat(after) != generation:
                generation = FileGeneration(-1, -1, -1, -1, -1)
            return EntrySnapshot(name, "symlink", link=link, generation=generation)
    except OSError as exc:
        raise _os_error(exc, "cannot inspect", shown) from exc
    if stat.S_ISDIR(st.st_mode):
        raise WriterError("not_regular_file", f"{shown} is a directory", shown, kind="directory")
    if not stat.S_ISREG(st.st_mode):
        raise WriterError("not_regular_file", f"{shown} is a special file", shown, kind="special")
    current = _read_current(dir_fd, name, shown)
    if current.data is None:
        return EntrySnapshot(name, "missing")
    return EntrySnapshot(name, "file", current.data, None, current.generation, current.mode)


def read_entry(directory: str | os.PathLike[str], name: str) -> EntrySnapshot:
    """Read one entry of ``directory`` (which may itself be reached through a symlink)."""
    shown = str(Path(directory) / name)
    _check_name(name, shown)
    dir_fd = _open_dir(Path(directory))
    try:
        return _read_entry_at(dir_fd, name, shown)
    finally:
        os.close(dir_fd)


def _compare_entry(now: EntrySnapshot, expected: EntrySnapshot, shown: str) -> None:
    if now.kind != expected.kind:
        raise WriterError(
            "input_changed", f"{shown} was {expected.kind} and now is {now.kind}", shown
        )
    if now.data != expected.data or now.link != expected.link:
        raise WriterError("input_changed", f"{shown} changed since it was read", shown)
    if now.generation != expected.generation:
        raise WriterError(
            "input_changed", f"{shown} file generation changed since it was read", shown
        )


def replace_entries(
    directory: str | os.PathLike[str],
    bodies: Mapping[str, bytes],
    *,
    expected: Mapping[str, EntrySnapshot],
    lock_target: str | os.PathLike[str],
    fault: FaultHook | None = None,
    lock: WriterLock | None = None,
    lock_timeout: float = 30.0,
) -> BundleReport:
    """Replace several entries of one directory as one transaction.

    The bundle protocol for targets a person owns (rendered analyses): a
    target may be missing, a regular file or a symlink, and a symlink is
    replaced as a directory entry, never followed. Every body is staged and
    verified and every entry rechecked against ``expected`` before the first
    replacement. During commit each existing target is first linked to a
    same-directory recovery backup (``.<name>.<hex>.recovery``, the very
    inode or symlink) and then replaced by its staged body; any later
    failure restores the backups in reverse order, so a restored target is
    its original inode with its original bytes (its ctime moves: its link
    count changed) and raises ``bundle_rolled_back`` (or
    ``bundle_rollback_incomplete``). After the last replacement the backups
    are removed and failures are warnings, as for :func:`install_bundle`.
    """
    directory = Path(directory)
    new: dict[str, bytes] = {}
    for name in bodies:
        _check_name(name, str(directory / name))
        if name not in expected:
            raise ValueError(f"no expected entry snapshot for {name!r}")
        new[name] = _to_bytes(bodies[name])
    target = Path(lock_target)
    tx = transaction.open_transaction(
        directory, str(directory), target, lock, lock_timeout, fault, _journal_name(target)
    )
    return transaction.run(_Entries(list(bodies), new, expected), tx)


def _same_inode(named: os.stat_result | None, generation: FileGeneration | None) -> bool:
    return (
        named is not None
        and generation is not None
        and _identity(named) == (generation.device, generation.inode)
    )


@dataclass
class _Entries:
    """The strategy of :func:`replace_entries`: staged bodies, recovery backups by link."""

    names: list[str]
    new: dict[str, bytes]
    expected: Mapping[str, EntrySnapshot]
    prefix: str = "entries_"
    staged: dict[str, staging._Staged] = field(default_factory=dict)
    planned: dict[str, str] = field(default_factory=dict)
    backups: dict[str, str] = field(default_factory=dict)
    installed: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    def prepare(self, tx: Transaction) -> list[str] | None:
        # An interrupted earlier transaction is settled first (see install_bundle).
        _settle_journal(tx.dir_fd, tx.journal, tx.subject)
        staging._sweep_leftovers(tx.dir_fd, {*self.names, tx.journal}.__contains__)
        for name in self.names:
            self._compare(tx, name)
        return [
            name
            for name in self.names
            if not (
                self.expected[name].kind == "file" and self.expected[name].data == self.new[name]
            )
        ]

    def _compare(self, tx: Transaction, name: str) -> None:
        now = _read_entry_at(tx.dir_fd, name, tx.shown(name))
        _compare_entry(now, self.expected[name], tx.shown(name))

    def unchanged(self, tx: Transaction) -> BundleReport:  # prepare never returns None
        raise AssertionError("replace_entries always runs its after-install step")

    def stage(self, tx: Transaction, pending: list[str]) -> None:
        # Staging is write + fsync per body; concurrent fsyncs share journal
        # commits, so a 50-file batch stages in a fraction of the serial time.
        # Unwinding signals wait until every staged file is collected as ours
        # (the worker threads go on staging meanwhile), so a SIGTERM here ends
        # in the abort removing all of them rather than leaving the late ones.
        with cli.deferred_interrupts():
            with ThreadPoolExecutor(max_workers=_ENTRY_THREADS) as pool:
                futures = {
                    name: pool.submit(
                        staging._stage,
                        tx.dir_fd,
                        name,
                        self.new[name],
                        self.expected[name].mode,
                        "staged",
                        tx.shown(name),
                        tx.fault,
                        "entries_",
                    )
                    for name in pending
                }
            failures = []
            for name, future in futures.items():
                try:
                    self.staged[name] = future.result()
                except BaseException as exc:  # noqa: BLE001 - re-raised below, after collecting
                    failures.append(exc)
        if failures:
            raise failures[0]

    def recheck(self, tx: Transaction, pending: list[str]) -> None:
        tx.fault_at("entries_before_recheck")
        for name in pending:
            self._compare(tx, name)
            staging._verify_staged(self.staged[name], tx.shown(name))

    def intent(self, tx: Transaction, pending: list[str]) -> None:
        # The intent journal names every recovery backup before the first link.
        expected = self.expected
        self.planned = {
            n: staging._staged_name(n, "recovery") for n in pending if expected[n].kind != "missing"
        }
        entries = [
            {
                "name": name,
                "new_sha256": self.staged[name].sha256,
                "prior_link": expected[name].link if expected[name].kind == "symlink" else None,
                "prior_sha256": _sha256(expected[name].data)  # type: ignore[arg-type]
                if expected[name].kind == "file"
                else None,
                "rollback": self.planned.get(name),
                "staged": self.staged[name].name,
            }
            for name in pending
        ]
        if pending:
            transaction.write_intent(tx, entries)

    def commit(self, tx: Transaction, pending: list[str]) -> None:
        self.pending = pending
        transaction.commit_each(
            tx, "entries_", pending, lambda name: self._install(tx, name), self.installed
        )

    def _install(self, tx: Transaction, name: str) -> None:
        prior, staged = self.expected[name], self.staged[name]
        if prior.kind == "missing":
            transaction.link_new(tx, staged.name, name, f"{tx.shown(name)} was created meanwhile")
            return
        backup = self.planned[name]
        os.link(name, backup, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd, follow_symlinks=False)
        self.backups[name] = backup
        if not _same_inode(_stat_name(tx.dir_fd, backup), prior.generation):
            raise WriterError(
                "input_changed", f"{tx.shown(name)} changed before its backup", tx.shown(name)
            )
        tx.step = f"entries_after_backup:{name}"
        tx.fault_at(tx.step)
        tx.step = f"entries_install:{name}"
        os.replace(staged.name, name, src_dir_fd=tx.dir_fd, dst_dir_fd=tx.dir_fd)

    def commit_failed(self, tx: Transaction, exc: BaseException) -> None:
        problems = self._restore(tx)
        transaction.fail_after_rollback(
            self, tx, exc, problems, "every target restored from its recovery backup"
        )

    def _restore(self, tx: Transaction) -> list[str]:
        """Undo a partial commit in reverse order; return what could not be restored."""
        problems: list[str] = []
        touched = [n for n in self.pending if n in self.installed or n in self.backups]
        for name in reversed(touched):
            try:
                problem = self._restore_one(tx, name)
            except OSError as exc:
                problem = f"{name}: {exc}"
            if problem is not None:
                problems.append(problem)
        try:
            os.fsync(tx.dir_fd)
        except OSError as exc:
            problems.append(f"directory fsync: {exc}")
        for name in touched:
            problem = self._check_restored(tx, name)
            if problem is not None:
                problems.append(problem)
        return problems

    def _restore_one(self, tx: Transaction, name: str) -> str | None:
        dir_fd, backups = tx.dir_fd, self.backups
        if name in self.installed and name in backups:
            os.replace(backups[name], name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        elif name in self.installed:
            if transaction.unlink_own(dir_fd, name, self.staged[name].identity) is False:
                return f"{name}: created name was substituted; left in place"
        else:
            # Backup linked, target not yet replaced: drop the second link only.
            named = _stat_name(dir_fd, backups[name])
            if _same_inode(named, self.expected[name].generation):
                os.unlink(backups[name], dir_fd=dir_fd)
            elif named is not None:
                return f"{name}: recovery backup was substituted; left in place"
        return None

    def _check_restored(self, tx: Transaction, name: str) -> str | None:
        try:
            now = _read_entry_at(tx.dir_fd, name, tx.shown(name))
        except WriterError as exc:
            return f"{name}: {exc.message}"
        prior = self.expected[name]
        same_identity = (
            now.generation is None
            or prior.generation is None
            or (now.generation.device, now.generation.inode)
            == (prior.generation.device, prior.generation.inode)
        )
        if now.kind != prior.kind or now.data != prior.data or now.link != prior.link:
            return f"{name}: prior entry not restored"
        if not same_identity:
            return f"{name}: restored entry is another inode"
        return None

    def discard(self) -> None:
        for item in self.staged.values():
            staging._discard_staged(item)

    def finish(self, tx: Transaction, pending: list[str]) -> BundleReport:
        """Verify, clean up, fsync; the journal goes before the lock; never raises."""
        journal_fd = os.dup(tx.dir_fd)  # _after_install closes dir_fd
        try:
            report = self._after_install(tx, pending)
            extra: list[str] = []
            if pending and report.durability_state != "installed_directory_fsync_failed":
                # Only a durable new generation may drop the journal that can undo it.
                problem = _remove_journal(journal_fd, tx.journal)
                if problem is not None:
                    extra.append(problem)
        finally:
            os.close(journal_fd)
            # The lock is released only after the journal is gone.
            extra_release = tx.release_warnings()
        extra.extend(extra_release)
        if extra:
            report = BundleReport(
                report.directory, report.files, report.removed, (*report.warnings, *extra)
            )
        return report

    def _after_install(self, tx: Transaction, pending: list[str]) -> BundleReport:
        """Verify, remove staged links and recovery backups, fsync and close."""
        per_file: dict[str, list[str]] = {name: [] for name in pending}
        warnings: list[str] = []
        verify_failed: set[str] = set()
        try:
            tx.fault_at("entries_before_verify")
            for name in pending:
                problem = staging._verify_installed(tx.dir_fd, name, self.staged[name])
                if problem is not None:
                    verify_failed.add(name)
                    per_file[name].append(f"installed_verification_failed: {problem}")
        except Exception as exc:  # noqa: BLE001 - after install nothing may escape
            verify_failed.update(pending)
            warnings.append(f"installed_verification_failed: {exc!r}")
        # Removing a backup frees the old inode's blocks; done concurrently it
        # costs one journal commit instead of one per file.
        with ThreadPoolExecutor(max_workers=_ENTRY_THREADS) as pool:
            list(pool.map(lambda name: self._cleanup(tx, name, per_file[name]), pending))
        fsync_failure = transaction.fsync_directory(tx, "entries_before_dir_fsync")
        if fsync_failure is not None:
            warnings.append(fsync_failure)
        transaction.close_directory(tx, warnings)
        reports: dict[str, WriteReport] = {}
        for name in self.names:
            sha = _sha256(self.new[name])
            prior = self.expected[name]
            input_sha = _sha256(prior.data) if prior.data is not None else None
            if name not in pending:
                reports[name] = WriteReport(tx.shown(name), "unchanged", False, sha, sha)
                continue
            state = transaction.durability(name in verify_failed, fsync_failure is None)
            reports[name] = WriteReport(
                tx.shown(name), state, True, input_sha, sha, tuple(per_file[name])
            )
        return BundleReport(tx.subject, reports, (), tuple(warnings))

    def _cleanup(self, tx: Transaction, name: str, problems: list[str]) -> None:
        """Drop a created name's staged link and a replaced name's recovery backup."""
        item = self.staged[name]
        try:
            if self.expected[name].kind == "missing":
                transaction.unlink_own(tx.dir_fd, item.name, item.identity)
            if name in self.backups:
                named = _stat_name(tx.dir_fd, self.backups[name])
                if _same_inode(named, self.expected[name].generation):
                    os.unlink(self.backups[name], dir_fd=tx.dir_fd)
                elif named is not None:
                    problems.append("recovery_backup_substituted: left in place")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"recovery_cleanup_failed: {exc!r}")
        with suppress(OSError):
            item.close()
