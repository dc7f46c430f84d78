"""The persistent sibling lock every writer of a target serializes on."""

from __future__ import annotations

import fcntl
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rvault_contracts import cli
from rvault_contracts.writer.fs import (
    _O_CLOEXEC,
    _O_NOFOLLOW,
    _check_name,
    _identity,
    _open_dir,
    _os_error,
    _stat_name,
)
from rvault_contracts.writer.journal import _settle_journal
from rvault_contracts.writer.pending import _journal_name
from rvault_contracts.writer.values import WriterError


def lock_path_for(target: str | os.PathLike[str]) -> Path:
    """The persistent sibling lock file of ``target``."""
    path = Path(target)
    return path.with_name(path.name + ".lock")


_HELD_GUARD = threading.Lock()
_HELD: dict[tuple[int, int], tuple[int, int]] = {}


class WriterLock:
    """An exclusive ``flock`` on a target's persistent sibling lock file.

    The lock file is never deleted: deleting it would let two writers lock
    two different inodes under the same name.
    """

    def __init__(self, target: Path, path: Path, fd: int, identity: tuple[int, int]) -> None:
        self.target = target
        self.path = path
        self.identity = identity
        self._fd: int | None = fd
        self.warnings: list[str] = []
        #: What settling an interrupted bundle did when this lock was taken.
        self.settled: dict[str, Any] | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> list[str]:
        """Unlock and close; failures become warnings (the write already happened)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return []
        warnings: list[str] = []
        with _HELD_GUARD:
            _HELD.pop(self.identity, None)
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as exc:
            warnings.append(f"lock_unlock_failed: {exc}")
        try:
            os.close(fd)
        except OSError as exc:
            warnings.append(f"lock_close_failed: {exc}")
        self.warnings.extend(warnings)
        return warnings


def _acquire(target: Path, timeout: float) -> WriterLock:
    cli.raise_if_interrupted()
    lock_path = lock_path_for(target)
    shown = str(lock_path)
    _check_name(target.name, str(target))
    dir_fd = _open_dir(target.parent)
    try:
        try:
            fd = os.open(
                lock_path.name,
                os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | _O_NOFOLLOW | _O_CLOEXEC,
                0o644,
                dir_fd=dir_fd,
            )
        except OSError as exc:
            raise _os_error(exc, "cannot open lock file", shown) from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise WriterError("not_regular_file", f"{shown} is not a regular file", shown)
            identity = _identity(st)
            me = (os.getpid(), threading.get_ident())
            with _HELD_GUARD:
                if _HELD.get(identity) == me:
                    raise WriterError(
                        "lock_unavailable",
                        f"{shown} is already held by this thread; pass lock= to install()",
                        shown,
                    )
            _flock_within(fd, timeout, shown)
            named = _stat_name(dir_fd, lock_path.name)
            if named is None or _identity(named) != identity:
                raise WriterError(
                    "lock_unavailable", f"{shown} was replaced while locking it", shown
                )
            # A bundle locked on this target may have been interrupted: settle it
            # before the caller reads anything (see install_bundle).
            settled = _settle_journal(dir_fd, _journal_name(target), str(target.parent))
            with _HELD_GUARD:
                _HELD[identity] = me
            lock = WriterLock(target, lock_path, fd, identity)
            lock.settled = settled
            return lock
        except BaseException:
            os.close(fd)
            raise
    finally:
        os.close(dir_fd)


def _flock_within(fd: int, timeout: float, shown: str) -> None:
    """Take the exclusive ``flock``, polling with a growing delay until ``timeout``."""
    deadline = time.monotonic() + max(0.0, timeout)
    delay = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WriterError(
                    "lock_unavailable",
                    f"another writer holds {shown} (waited {timeout:g} s)",
                    shown,
                ) from None
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)


@contextmanager
def writer_lock(target: str | os.PathLike[str], timeout: float = 30.0) -> Iterator[WriterLock]:
    """Hold the exclusive sibling lock of ``target`` (read-modify-write scope).

    Raises ``WriterError("lock_unavailable")`` after ``timeout`` seconds.
    """
    lock = _acquire(Path(target), timeout)
    try:
        yield lock
    finally:
        lock.release()


def _check_lock(lock: WriterLock, lock_target: Path, dir_fd: int) -> None:
    """A caller-supplied lock must be held and be the lock of this very file."""
    shown = str(lock_path_for(lock_target))
    if not lock.held:
        raise WriterError("lock_unavailable", f"the lock {lock.path} is not held", shown)
    named = _stat_name(dir_fd, lock_path_for(lock_target).name)
    if (
        lock.path.name != lock_path_for(lock_target).name
        or named is None
        or _identity(named) != lock.identity
    ):
        raise WriterError(
            "lock_unavailable", f"{lock.path} is not the lock of {lock_target}", shown
        )
