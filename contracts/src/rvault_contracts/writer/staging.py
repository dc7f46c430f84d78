"""Staged candidates: created exclusively, written, fsynced, rechecked.

Also the sweep of a dead writer's leftovers and the check that an installed
name is exactly the staged inode with its bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field

from rvault_contracts import cli
from rvault_contracts.writer import fs
from rvault_contracts.writer.fs import (
    _O_CLOEXEC,
    _O_NOFOLLOW,
    _call_fault,
    _identity,
    _os_error,
    _sha256,
    _stat_name,
)
from rvault_contracts.writer.values import (
    STAGED_VERIFY_ATTEMPTS,
    FaultHook,
    FileGeneration,
    StagedCandidateConflictError,
)


class _Digest:
    """The SHA-256 of a candidate, computed on another core while it is staged.

    hashlib releases the GIL on large buffers and staging is mostly write and
    fsync system calls, so for a 100 MB vault the digest comes almost free.
    """

    _BACKGROUND_FROM = 1 << 20

    def __init__(self, data: bytes) -> None:
        self._value: str | None = None
        self._thread: threading.Thread | None = None
        if len(data) < self._BACKGROUND_FROM:
            self._value = _sha256(data)
        else:
            self._thread = threading.Thread(target=self._compute, args=(data,), daemon=True)
            self._thread.start()

    def _compute(self, data: bytes) -> None:
        self._value = _sha256(data)

    def result(self) -> str:
        if self._thread is not None:
            self._thread.join()
        assert self._value is not None
        return self._value


@dataclass
class _Staged:
    """A staged candidate: retained descriptor, its name, identity and digest."""

    dir_fd: int
    name: str
    fd: int
    identity: tuple[int, int]
    data: bytes
    sha256: str
    baseline: FileGeneration | None = None
    rebaselines: int = 0
    closed: bool = field(default=False)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)


def _staged_name(name: str, kind: str) -> str:
    """``.NAME.<pid>-<hex>.KIND``: the pid lets a later writer prove a leftover dead."""
    return f".{name}.{os.getpid()}-{secrets.token_hex(8)}.{kind}"


_LEFTOVER = re.compile(r"\.(?P<base>.+)\.(?P<pid>[0-9]{1,10})-[0-9a-f]{16}\.(?:staged|rollback)")


def _pid_alive(pid: int) -> bool:
    if pid <= 0 or pid == os.getpid():
        return True  # not a pid we can reason about, or ourselves: keep the file
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _sweep_leftovers(dir_fd: int, guarded: Callable[[str], bool]) -> list[str]:
    """Remove staged and rollback files of names this lock guards whose writer is dead.

    Called with the target's lock held: a cooperating writer only stages
    while it holds that lock, so a leftover for a guarded name whose
    recorded pid no longer runs is provably a crash remnant. Only regular
    files are removed (never followed); anything else, a live pid or a name
    without a pid (older writers) is left alone. Never raises: a sweep that
    cannot list or unlink is not a reason to refuse the write.
    """
    removed: list[str] = []
    try:
        entries = os.listdir(dir_fd)
    except OSError:
        return removed
    for entry in entries:
        match = _LEFTOVER.fullmatch(entry)
        if match is None or not guarded(match["base"]) or _pid_alive(int(match["pid"])):
            continue
        try:
            st = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode):
                os.unlink(entry, dir_fd=dir_fd)
                removed.append(entry)
        except OSError:
            continue
    return removed


def _names_inode(dir_fd: int, name: str, identity: tuple[int, int]) -> bool:
    """Whether ``name`` (not followed) is the inode ``identity``; False on any error."""
    try:
        named = _stat_name(dir_fd, name)
    except OSError:
        return False
    return named is not None and _identity(named) == identity


def _stage(
    dir_fd: int,
    name: str,
    data: bytes,
    mode: int | None,
    kind: str,
    shown: str,
    fault: FaultHook | None,
    step_prefix: str = "",
    digest: _Digest | None = None,
) -> _Staged:
    """Create a unique staged file (``O_EXCL``, no-follow), write and fsync it.

    Creating the name and taking ownership of it (:class:`_Staged`) happen
    with unwinding signals deferred: a SIGTERM that arrives on the ``open``
    is raised once the file is ours, so the cleanup below removes it and a
    writer stopped that way leaves no staged file behind (it used to, when
    the signal surfaced between the ``open`` and the ``fstat``).
    """
    staged: _Staged | None = None
    try:
        with cli.deferred_interrupts():
            staged = _create_staged(dir_fd, _staged_name(name, kind), data, shown)
        if digest is None:
            digest = _Digest(data)
        fd = staged.fd
        if mode is not None:
            os.fchmod(fd, mode)
        fs._write_all(fd, data)
        _call_fault(fault, step_prefix + "after_stage_write")
        os.fsync(fd)
        staged.sha256 = digest.result()
        staged.baseline = FileGeneration.from_stat(os.fstat(fd))
        _call_fault(fault, step_prefix + "after_stage_fsync")
    except BaseException:
        if staged is not None:
            _discard_staged(staged)
        raise
    return staged


def _create_staged(dir_fd: int, staged_name: str, data: bytes, shown: str) -> _Staged:
    """Create ``staged_name`` exclusively and return it as ours (closed again on failure)."""
    try:
        fd = os.open(
            staged_name,
            os.O_RDWR | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC,
            0o666,
            dir_fd=dir_fd,
        )
    except OSError as exc:
        raise _os_error(exc, "cannot create staged file", shown) from exc
    try:
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        with suppress(OSError):
            os.unlink(staged_name, dir_fd=dir_fd)  # created exclusively just now: ours
        raise
    return _Staged(dir_fd, staged_name, fd, _identity(st), data, "")


def _discard_staged(staged: _Staged) -> bool:
    """Unlink the staged name only if it still names our inode; always close.

    Returns False when the name was left alone (missing or substituted).
    """
    removed = False
    try:
        named = _stat_name(staged.dir_fd, staged.name)
        ours = named is not None and _identity(named) == staged.identity
        if ours and named is not None and stat.S_ISREG(named.st_mode):
            os.unlink(staged.name, dir_fd=staged.dir_fd)
            removed = True
    except OSError:
        removed = False
    finally:
        with suppress(OSError):
            staged.close()
    return removed


def _hard_check(st: os.stat_result, staged: _Staged, view: str, shown: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise StagedCandidateConflictError(
            f"staged_{view}_type", f"staged {view} is not a regular file", shown
        )
    if _identity(st) != staged.identity:
        raise StagedCandidateConflictError(
            f"staged_{view}_identity",
            f"staged {view} no longer names the inode this writer created",
            shown,
        )
    if st.st_nlink != 1:
        raise StagedCandidateConflictError(
            "staged_link_count", f"staged file has {st.st_nlink} links, expected 1", shown
        )
    if st.st_size != len(staged.data):
        raise StagedCandidateConflictError(
            "staged_size", f"staged file size {st.st_size} != {len(staged.data)}", shown
        )


def _both_views(staged: _Staged, shown: str) -> tuple[os.stat_result, os.stat_result]:
    """The staged file seen through its descriptor and its name, hard invariants checked."""
    descriptor = os.fstat(staged.fd)
    named = _stat_name(staged.dir_fd, staged.name)
    if named is None:
        raise StagedCandidateConflictError("staged_name_missing", "staged name disappeared", shown)
    _hard_check(named, staged, "name", shown)
    _hard_check(descriptor, staged, "descriptor", shown)
    return descriptor, named


def _verify_staged(staged: _Staged, shown: str, attempts: int = STAGED_VERIFY_ATTEMPTS) -> None:
    """Recheck the staged candidate through its descriptor and its name.

    Identity, type, single link, size, bytes and SHA-256 are hard invariants.
    mtime/ctime may have moved since the fsync baseline (some filesystems
    settle timestamps late); they are rebaselined only when both the
    descriptor view and the name view are each stable across one byte-read
    window, within ``attempts`` windows.
    """
    for _ in range(max(1, attempts)):
        d1, n1 = _both_views(staged, shown)
        digest = hashlib.sha256()
        if not fs._stream_equal(staged.fd, staged.data, digest):
            raise StagedCandidateConflictError(
                "staged_bytes", "staged bytes differ from the candidate", shown
            )
        if digest.hexdigest() != staged.sha256:
            raise StagedCandidateConflictError(
                "staged_sha256", "staged SHA-256 differs from the candidate", shown
            )
        d2, n2 = _both_views(staged, shown)
        g_d1, g_d2 = FileGeneration.from_stat(d1), FileGeneration.from_stat(d2)
        g_n1, g_n2 = FileGeneration.from_stat(n1), FileGeneration.from_stat(n2)
        if g_d1 == g_d2 and g_n1 == g_n2 and g_d2 == g_n2:
            if g_d2 != staged.baseline:
                staged.baseline = g_d2
                staged.rebaselines += 1
            return
    raise StagedCandidateConflictError(
        "staged_generation_unstable",
        f"staged file generation kept moving across {attempts} read windows",
        shown,
    )


def _verify_installed(dir_fd: int, name: str, staged: _Staged) -> str | None:
    """None when ``name`` is exactly the staged inode with exactly its bytes."""
    named = _stat_name(dir_fd, name)
    if named is None:
        return "installed name is missing"
    if not stat.S_ISREG(named.st_mode):
        return "installed name is not a regular file"
    if _identity(named) != staged.identity:
        return "installed name names another inode"
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=dir_fd)
    try:
        if _identity(os.fstat(fd)) != staged.identity:
            return "installed name names another inode"
        if not fs._stream_equal(fd, staged.data):
            return "installed bytes differ from the staged candidate"
    finally:
        os.close(fd)
    return None
