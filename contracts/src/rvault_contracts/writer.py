"""The writer protocol every toolkit writer shares.

A vault file is only ever replaced by a transaction that proves, at the last
moment before the install syscall, that it is replacing exactly the bytes and
file generation the caller read, with exactly the bytes the caller staged:

1. Cooperating writers serialize on a persistent sibling lock file
   (``<name>.lock``, opened no-follow, never deleted, so every writer locks the
   same inode) with ``flock``.
2. The parent directory is opened once and its descriptor retained; every
   later name operation (stage, link, replace, unlink, stat) is anchored to
   that descriptor, so a directory swapped in behind the path cannot redirect
   the write.
3. The complete new bytes are written and fsynced through a retained
   no-follow descriptor of a unique staged file created with ``O_EXCL``.
4. Immediately before installing, the target's exact bytes and
   :class:`FileGeneration` are compared with the caller's snapshot, and the
   staged candidate's bytes, SHA-256, type, link count and directory-relative
   identity (the name still names the descriptor's inode) are rechecked. A
   substituted staged name raises :class:`StagedCandidateConflictError` and is
   left untouched: we never unlink a path we cannot prove is ours.
5. After the install syscall the installed name is verified (inode and bytes)
   and the directory is fsynced. From the install syscall on no exception
   escapes: a failure becomes a warning and an ``installed_*`` outcome, because
   the file *was* written and a caller must not retry as if it was not.

Filesystem editors that ignore the lock are outside the exclusion guarantee;
the final recheck and the post-install verification are defense in depth,
and every caller must re-read the live file after an installed result.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

from rvault_contracts import cli
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict

__all__ = [
    "DURABILITY_STATES",
    "ENTRY_KINDS",
    "STAGED_VERIFY_ATTEMPTS",
    "BundleReport",
    "EntrySnapshot",
    "FaultHook",
    "FileGeneration",
    "RemovedFile",
    "Snapshot",
    "StagedCandidateConflictError",
    "WriteReport",
    "WriterError",
    "WriterLock",
    "install",
    "install_bundle",
    "lock_path_for",
    "pending_bundle",
    "read_entry",
    "read_snapshot",
    "recover_bundle",
    "replace_entries",
    "settle_pending_bundle",
    "writer_lock",
]

DURABILITY_STATES = (
    "durable",
    "unchanged",
    "installed_directory_fsync_failed",
    "installed_verification_failed",
)

#: How many descriptor/name byte-read windows the staged recheck may take
#: before an unstable staged generation counts as a conflict.
STAGED_VERIFY_ATTEMPTS = 3

#: How many times :func:`read_snapshot` retries a read whose generation moved
#: while it was reading.
SNAPSHOT_READ_ATTEMPTS = 5

FaultHook = Callable[[str], None]

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = os.O_NOFOLLOW
_O_DIRECTORY = os.O_DIRECTORY
_SYMLINK_ERRNOS = {errno.ELOOP, errno.EMLINK}


# --------------------------------------------------------------------------- errors


class WriterError(Refusal):
    """A write refused before anything was installed (exit 2 in a CLI).

    Codes: ``input_changed``, ``staged_candidate_conflict``,
    ``lock_unavailable``, ``backup_conflict``, ``symlink_refused``,
    ``not_regular_file``, ``io_error``, ``bundle_rolled_back``,
    ``bundle_rollback_incomplete``. Subclassing :class:`Refusal` lets an owner
    CLI let it propagate and still print the ``cli-failure`` document.
    """


class StagedCandidateConflictError(WriterError):
    """The staged candidate no longer is what this writer staged.

    ``invariant`` names the failed check (``staged_name_identity``,
    ``staged_bytes``, ``staged_generation_unstable`` ...). A substituted
    staged name is left untouched.
    """

    def __init__(self, invariant: str, message: str, path: str | None = None) -> None:
        super().__init__("staged_candidate_conflict", message, path, invariant=invariant)
        self.invariant = invariant


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class FileGeneration:
    """The identity fields a silent replacement or edit would change."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def from_stat(cls, st: os.stat_result) -> FileGeneration:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def to_dict(self) -> dict[str, int]:
        return {
            "device": self.device,
            "inode": self.inode,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "ctime_ns": self.ctime_ns,
        }


@dataclass(frozen=True)
class Snapshot:
    """What a writer read: exact bytes and generation, or ``None`` for missing."""

    path: Path
    data: bytes | None
    generation: FileGeneration | None

    @property
    def exists(self) -> bool:
        return self.data is not None

    @cached_property
    def sha256(self) -> str | None:
        """Computed once: a large database is hashed by the reader and the writer."""
        return None if self.data is None else _sha256(self.data)


@dataclass(frozen=True)
class WriteReport:
    """Outcome of one installed (or no-op) write; contract ``write-report`` v1."""

    path: str
    durability_state: str
    database_written: bool
    input_sha256: str | None
    output_sha256: str
    warnings: tuple[str, ...] = ()
    backup_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "backup_path": self.backup_path,
            "database_written": self.database_written,
            "durability_state": self.durability_state,
            "input_sha256": self.input_sha256,
            "output_sha256": self.output_sha256,
            "path": self.path,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class RemovedFile:
    """A file a bundle deleted (``None`` in ``changes``)."""

    name: str
    input_sha256: str


@dataclass(frozen=True)
class BundleReport:
    """Outcome of :func:`install_bundle`: one report per written name."""

    directory: str
    files: dict[str, WriteReport]
    removed: tuple[RemovedFile, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def database_written(self) -> bool:
        return bool(self.removed) or any(r.database_written for r in self.files.values())

    @property
    def durability_state(self) -> str:
        """The worst state of any file (verification beats fsync beats durable)."""
        states = {r.durability_state for r in self.files.values()}
        states.update(w.split(":", 1)[0] for w in self.warnings)
        for state in ("installed_verification_failed", "installed_directory_fsync_failed"):
            if state in states:
                return state
        return "durable" if self.database_written else "unchanged"

    def to_dict(self) -> dict[str, Any]:
        return {
            "database_written": self.database_written,
            "directory": self.directory,
            "durability_state": self.durability_state,
            "files": {name: report.to_dict() for name, report in self.files.items()},
            "removed": [{"input_sha256": r.input_sha256, "name": r.name} for r in self.removed],
            "warnings": list(self.warnings),
        }


# --------------------------------------------------------------------------- helpers


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _call_fault(fault: FaultHook | None, step: str) -> None:
    if fault is not None:
        fault(step)


def _check_name(name: str, path: str) -> None:
    if not name or name in {".", ".."} or "/" in name or "\x00" in name:
        raise WriterError("io_error", f"not a plain file name: {name!r}", path)


def _os_error(exc: OSError, action: str, path: str) -> WriterError:
    if exc.errno in _SYMLINK_ERRNOS:
        return WriterError("symlink_refused", f"{action}: {path} is a symbolic link", path)
    return WriterError("io_error", f"{action}: {exc.strerror or exc}", path)


def _open_dir(path: Path) -> int:
    """Open a directory once; the path itself may be reached through a symlink."""
    try:
        return os.open(str(path), os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    except OSError as exc:
        raise WriterError(
            "io_error", f"cannot open directory: {exc.strerror or exc}", str(path)
        ) from exc


def _read_fd(fd: int) -> bytes:
    """All bytes of a regular file descriptor, from offset 0, position-independent.

    The first read asks for the whole file plus one byte, so a stable file
    (the usual case) arrives in one buffer with no join copy; a file that
    grows meanwhile is still read to its end.
    """
    chunks: list[bytes] = []
    offset = 0
    want = max(os.fstat(fd).st_size + 1, 1 << 16)
    while chunk := os.pread(fd, want, offset):
        chunks.append(chunk)
        offset += len(chunk)
        want = 1 << 20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_COMPARE_CHUNK = 1 << 20


def _stream_equal(fd: int, expected: bytes, digest: Any = None) -> bool:
    """Whether the file holds exactly ``expected``, read through a 1 MiB buffer.

    Verification reads happen three or four times per install; streaming
    them through one small buffer, compared in place (``bytes.startswith``
    is a memcmp), costs a third of reading a large file into a fresh
    buffer and comparing that. ``digest`` (a hashlib object) is fed the
    bytes actually read.
    """
    buffer = bytearray(_COMPARE_CHUNK)
    view = memoryview(buffer)
    offset = 0
    while count := os.preadv(fd, [buffer], offset):
        chunk = view[:count]
        if not expected.startswith(chunk, offset):
            return False
        if digest is not None:
            digest.update(chunk)
        offset += count
    return offset == len(expected)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)


def _stat_name(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _identity(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


@dataclass(frozen=True)
class _Current:
    data: bytes | None
    generation: FileGeneration | None
    mode: int | None


def _read_current(dir_fd: int, name: str, shown: str, expect: bytes | None = None) -> _Current:
    """Read ``name`` below ``dir_fd`` without following a symlink.

    A FIFO or device is opened non-blocking and refused by type, so a planted
    special file cannot hang the writer. With ``expect`` (the bytes the
    caller read before), the file is compared in place and, when equal,
    ``expect`` itself stands for its bytes; only a differing file is read
    into memory.
    """
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return _Current(None, None, None)
    except OSError as exc:
        raise _os_error(exc, "cannot open", shown) from exc
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise WriterError("not_regular_file", f"{shown} is not a regular file", shown)
        data = expect if expect is not None and _stream_equal(fd, expect) else _read_fd(fd)
        after = os.fstat(fd)
    except OSError as exc:
        raise _os_error(exc, "cannot read", shown) from exc
    finally:
        os.close(fd)
    gen_before, gen_after = FileGeneration.from_stat(before), FileGeneration.from_stat(after)
    if gen_before != gen_after or len(data) != after.st_size:
        # Someone is editing it right now: report a generation nobody can match.
        return _Current(data, FileGeneration(-1, -1, -1, -1, -1), stat.S_IMODE(after.st_mode))
    return _Current(data, gen_after, stat.S_IMODE(after.st_mode))


def _compare_input(current: _Current, expected: Snapshot, shown: str) -> None:
    """Refuse unless the target is exactly what the caller read."""
    if expected.data is not None and expected.generation is None:
        raise ValueError("an existing Snapshot needs its FileGeneration; use read_snapshot()")
    if expected.data is None:
        if current.data is not None:
            raise WriterError("input_changed", f"{shown} was created since it was read", shown)
        return
    if current.data is None:
        raise WriterError("input_changed", f"{shown} was removed since it was read", shown)
    if current.data != expected.data:
        raise WriterError("input_changed", f"{shown} bytes changed since they were read", shown)
    if current.generation != expected.generation:
        raise WriterError(
            "input_changed",
            f"{shown} file generation changed since it was read (same bytes, other write)",
            shown,
        )


# --------------------------------------------------------------------------- snapshot


def read_snapshot(path: str | os.PathLike[str]) -> Snapshot:
    """Read a file's exact bytes and generation without following a symlink.

    The read is retried while the generation moves under it, so the bytes and
    the generation belong together. A missing file is ``Snapshot(data=None)``.
    """
    target = Path(path)
    shown = str(target)
    _check_name(target.name, shown)
    try:
        fd = os.open(shown, os.O_RDONLY | os.O_NONBLOCK | _O_NOFOLLOW | _O_CLOEXEC)
    except FileNotFoundError:
        return Snapshot(target, None, None)
    except OSError as exc:
        raise _os_error(exc, "cannot open", shown) from exc
    try:
        for _ in range(SNAPSHOT_READ_ATTEMPTS):
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise WriterError("not_regular_file", f"{shown} is not a regular file", shown)
            data = _read_fd(fd)
            after = os.fstat(fd)
            generation = FileGeneration.from_stat(after)
            if FileGeneration.from_stat(before) == generation and len(data) == after.st_size:
                return Snapshot(target, data, generation)
    except OSError as exc:
        raise _os_error(exc, "cannot read", shown) from exc
    finally:
        os.close(fd)
    raise WriterError("io_error", f"{shown} kept changing while being read", shown)


# --------------------------------------------------------------------------- lock


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
            deadline = time.monotonic() + max(0.0, timeout)
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
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


# --------------------------------------------------------------------------- staging


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
        _write_all(fd, data)
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


def _verify_staged(staged: _Staged, shown: str, attempts: int = STAGED_VERIFY_ATTEMPTS) -> None:
    """Recheck the staged candidate through its descriptor and its name.

    Identity, type, single link, size, bytes and SHA-256 are hard invariants.
    mtime/ctime may have moved since the fsync baseline (some filesystems
    settle timestamps late); they are rebaselined only when both the
    descriptor view and the name view are each stable across one byte-read
    window, within ``attempts`` windows.
    """
    for _ in range(max(1, attempts)):
        d1 = os.fstat(staged.fd)
        n1 = _stat_name(staged.dir_fd, staged.name)
        if n1 is None:
            raise StagedCandidateConflictError(
                "staged_name_missing", "staged name disappeared", shown
            )
        _hard_check(n1, staged, "name", shown)
        _hard_check(d1, staged, "descriptor", shown)
        digest = hashlib.sha256()
        if not _stream_equal(staged.fd, staged.data, digest):
            raise StagedCandidateConflictError(
                "staged_bytes", "staged bytes differ from the candidate", shown
            )
        if digest.hexdigest() != staged.sha256:
            raise StagedCandidateConflictError(
                "staged_sha256", "staged SHA-256 differs from the candidate", shown
            )
        d2 = os.fstat(staged.fd)
        n2 = _stat_name(staged.dir_fd, staged.name)
        if n2 is None:
            raise StagedCandidateConflictError(
                "staged_name_missing", "staged name disappeared", shown
            )
        _hard_check(n2, staged, "name", shown)
        _hard_check(d2, staged, "descriptor", shown)
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


# --------------------------------------------------------------------------- backup


@dataclass
class _Backup:
    path: str
    created: bool
    dir_fd: int
    name: str
    identity: tuple[int, int]
    created_dir: bool
    parent_fd: int | None
    dir_name: str
    created_ancestors: list[Path] = field(default_factory=list)

    def close(self) -> None:
        with suppress(OSError):
            os.close(self.dir_fd)
        if self.parent_fd is not None:
            with suppress(OSError):
                os.close(self.parent_fd)

    def undo(self) -> None:
        """Remove a backup this transaction created (identity-checked), then close."""
        try:
            if self.created:
                named = _stat_name(self.dir_fd, self.name)
                if named is not None and _identity(named) == self.identity:
                    os.unlink(self.name, dir_fd=self.dir_fd)
            if self.created_dir and self.parent_fd is not None:
                with suppress(OSError):
                    os.rmdir(self.dir_name, dir_fd=self.parent_fd)
                for ancestor in reversed(self.created_ancestors):
                    with suppress(OSError):
                        ancestor.rmdir()
        except OSError:
            pass
        finally:
            self.close()


def _create_ancestors(directory: Path, shown: str) -> list[Path]:
    """Create missing ancestors top-down; return the ones created (for undo)."""
    missing: list[Path] = []
    probe = directory
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    created: list[Path] = []
    for path in reversed(missing):
        try:
            path.mkdir(0o755)
        except FileExistsError:
            continue
        except OSError as exc:
            for done in reversed(created):
                with suppress(OSError):
                    done.rmdir()
            raise WriterError("io_error", f"cannot create {path}: {exc}", shown) from exc
        created.append(path)
    return created


def _open_backup_dir(backup_dir: Path) -> tuple[int, int, bool, list[Path]]:
    """Open (creating if missing) the backup directory without following a symlink.

    Its parent may be reached through a symlink (like the vault root); the
    backup directory itself may not. Returns (parent_fd, dir_fd, created,
    created ancestors) so a refused transaction can remove what it created.
    """
    shown = str(backup_dir)
    _check_name(backup_dir.name, shown)
    ancestors = _create_ancestors(backup_dir.parent, shown)
    try:
        parent_fd = _open_dir(backup_dir.parent)
    except BaseException:
        for done in reversed(ancestors):
            with suppress(OSError):
                done.rmdir()
        raise
    created = False
    try:
        try:
            os.mkdir(backup_dir.name, 0o755, dir_fd=parent_fd)
            created = True
        except FileExistsError:
            pass
        try:
            dir_fd = os.open(
                backup_dir.name,
                os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC,
                dir_fd=parent_fd,
            )
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                named = _stat_name(parent_fd, backup_dir.name)
                if named is not None and stat.S_ISLNK(named.st_mode):
                    raise WriterError(
                        "symlink_refused", f"backup directory {shown} is a symbolic link", shown
                    ) from exc
                raise WriterError(
                    "not_regular_file", f"backup path {shown} is not a directory", shown
                ) from exc
            raise _os_error(exc, "cannot open backup directory", shown) from exc
    except BaseException:
        os.close(parent_fd)
        for done in reversed(ancestors):
            with suppress(OSError):
                done.rmdir()
        raise
    return parent_fd, dir_fd, created, ancestors


def _write_backup(backup_dir: Path, target_name: str, data: bytes) -> _Backup:
    """Store ``data`` as ``<name>.<sha256>.bak``; never overwrite an existing backup.

    The copy is staged and fsynced, then hard-linked to its final name
    (``linkat`` fails when the name exists), so a crash never leaves a partial
    file under the final name.
    """
    digest = _sha256(data)
    name = f"{target_name}.{digest}.bak"
    shown = str(backup_dir / name)
    parent_fd, dir_fd, created_dir, ancestors = _open_backup_dir(backup_dir)
    backup = _Backup(
        shown, False, dir_fd, name, (0, 0), created_dir, parent_fd, backup_dir.name, ancestors
    )
    try:
        backup_name = re.compile(re.escape(target_name) + r"\.[0-9a-f]{64}\.bak")
        _sweep_leftovers(dir_fd, lambda base: backup_name.fullmatch(base) is not None)
        staged = _stage(dir_fd, name, data, None, "staged", shown, None)
        try:
            try:
                os.link(
                    staged.name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False
                )
                backup.created = True
                backup.identity = staged.identity
            except FileExistsError:
                existing = _read_current(dir_fd, name, shown)
                if existing.data != data:
                    raise WriterError(
                        "backup_conflict",
                        f"{shown} exists with other bytes; backups are never overwritten",
                        shown,
                    ) from None
            except OSError as exc:
                # linkat's EMLINK means too many links, not a symlink (unlike an open's)
                raise WriterError(
                    "io_error", f"cannot link backup: {exc.strerror or exc}", shown
                ) from exc
        finally:
            # The staged name now has a second link: remove only our name.
            try:
                named = _stat_name(dir_fd, staged.name)
                if named is not None and _identity(named) == staged.identity:
                    os.unlink(staged.name, dir_fd=dir_fd)
            finally:
                staged.close()
        os.fsync(dir_fd)
        if created_dir:
            os.fsync(parent_fd)
    except WriterError:
        backup.undo()
        raise
    except OSError as exc:
        backup.undo()
        raise _os_error(exc, "cannot write backup", shown) from exc
    except BaseException:
        backup.undo()
        raise
    return backup


# --------------------------------------------------------------------------- install


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
        if not _stream_equal(fd, staged.data):
            return "installed bytes differ from the staged candidate"
    finally:
        os.close(fd)
    return None


def _to_bytes(data: bytes | bytearray | memoryview) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"new bytes must be bytes, not {type(data).__name__}")
    return bytes(data)


def _pre_install_error(exc: BaseException, shown: str) -> BaseException:
    if isinstance(exc, OSError):
        return _os_error(exc, "write failed before install", shown)
    return exc


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
    name = target.name
    _check_name(name, shown)
    output_digest = _Digest(data)

    owned_lock = lock is None
    held = _acquire(target, lock_timeout) if lock is None else lock
    try:
        dir_fd = _open_dir(target.parent)
    except BaseException:
        if owned_lock:
            held.release()
        raise
    staged: _Staged | None = None
    backup: _Backup | None = None
    window = ExitStack()
    swept: list[str] = []
    try:
        if not owned_lock:
            _check_lock(held, target, dir_fd)
        _call_fault(fault, "after_lock")
        swept = _sweep_leftovers(dir_fd, lambda base: base == name)
        current = _read_current(dir_fd, name, shown, expected.data)
        _compare_input(current, expected, shown)
        input_sha = expected.sha256  # the bytes are equal; the digest is cached
        if current.data is not None and current.data == data:
            os.close(dir_fd)
            if owned_lock:
                held.release()
            output_sha = output_digest.result()
            return WriteReport(shown, "unchanged", False, input_sha, output_sha, (), None)
        staged = _stage(
            dir_fd, name, data, current.mode, "staged", shown, fault, digest=output_digest
        )
        if backup_dir is not None and current.data is not None:
            backup = _write_backup(Path(backup_dir), name, current.data)
        _call_fault(fault, "after_backup")
        _call_fault(fault, "before_recheck")
        _compare_input(_read_current(dir_fd, name, shown, expected.data), expected, shown)
        _verify_staged(staged, shown)
        _call_fault(fault, "before_replace")
        # From just before the install syscall an unwinding signal is recorded,
        # not raised: the report below must say what is on disk.
        window.enter_context(cli.deferred_interrupts())
        if current.data is None:
            # Create: linkat never replaces a name someone created meanwhile.
            try:
                os.link(
                    staged.name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False
                )
            except FileExistsError:
                raise WriterError(
                    "input_changed", f"{shown} was created since it was read", shown
                ) from None
        else:
            os.replace(staged.name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        if staged is None or not _names_inode(dir_fd, name, staged.identity):
            if staged is not None:
                _discard_staged(staged)
            if backup is not None:
                backup.undo()
            with suppress(OSError):
                os.close(dir_fd)
            if owned_lock:
                held.release()
            err = _pre_install_error(exc, shown)
            window.close()  # may re-deliver a recorded signal: nothing was installed
            if err is exc:
                raise
            raise err from exc
        # The install syscall ran even though something raised after it: the
        # file is the new generation, so the backup stays and we report that.
    # ---- installed: from here on nothing escapes ----------------------------------
    with window:
        cli.note_landed(shown)
        warnings: list[str] = [f"leftover_removed: {n}" for n in swept]
        state = _after_install(dir_fd, name, staged, current.data is None, fault, warnings)
        backup_path = None
        if backup is not None:
            backup_path = backup.path
            backup.close()
        if owned_lock:
            warnings.extend(held.release())
        output_sha = staged.sha256
        report = WriteReport(
            shown, state, True, input_sha, output_sha, tuple(warnings), backup_path
        )
    return report


def _after_install(
    dir_fd: int,
    name: str,
    staged: _Staged,
    created: bool,
    fault: FaultHook | None,
    warnings: list[str],
) -> str:
    """Verification, cleanup and directory fsync; every failure is a warning.

    Returns the durability state. Catching every ``Exception`` is the point:
    the file is installed, so no failure may look like a pre-install refusal.
    """
    verify_failed = False
    fsync_failed = False
    try:
        _call_fault(fault, "after_replace")
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"after_replace_failed: {exc!r}")
    try:
        _call_fault(fault, "before_verify")
        problem = _verify_installed(dir_fd, name, staged)
        if problem is not None:
            verify_failed = True
            warnings.append(f"installed_verification_failed: {problem}")
    except Exception as exc:  # noqa: BLE001
        verify_failed = True
        warnings.append(f"installed_verification_failed: {exc!r}")
    if created:
        # Created by linkat: the staged name is still a second link of the file.
        try:
            named = _stat_name(dir_fd, staged.name)
            if named is not None and _identity(named) == staged.identity:
                os.unlink(staged.name, dir_fd=dir_fd)
            elif named is not None:
                warnings.append("staged_cleanup_skipped: staged name was substituted")
        except Exception as exc:  # noqa: BLE001
            warnings.append(f"staged_cleanup_failed: {exc!r}")
    try:
        staged.close()
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"staged_close_failed: {exc!r}")
    try:
        _call_fault(fault, "before_dir_fsync")
        os.fsync(dir_fd)
    except Exception as exc:  # noqa: BLE001
        fsync_failed = True
        warnings.append(f"installed_directory_fsync_failed: {exc!r}")
    try:
        os.close(dir_fd)
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"directory_close_failed: {exc!r}")
    if verify_failed:
        return "installed_verification_failed"
    if fsync_failed:
        return "installed_directory_fsync_failed"
    return "durable"


# --------------------------------------------------------------------------- bundle


def _rollback(
    dir_fd: int,
    installed: list[str],
    currents: Mapping[str, _Current],
    staged: Mapping[str, _Staged],
    rollback: Mapping[str, _Staged],
) -> list[str]:
    """Restore every installed name to its exact prior bytes; return problems."""
    problems: list[str] = []
    for name in reversed(installed):
        try:
            if currents[name].data is None:
                named = _stat_name(dir_fd, name)
                if named is not None and _identity(named) == staged[name].identity:
                    os.unlink(name, dir_fd=dir_fd)
                elif named is not None:
                    problems.append(f"{name}: created name was substituted; left in place")
            else:
                os.replace(rollback[name].name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            problems.append(f"{name}: {exc}")
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        problems.append(f"directory fsync: {exc}")
    for name in installed:
        try:
            now = _read_current(dir_fd, name, name)
        except WriterError as exc:
            problems.append(f"{name}: {exc.message}")
            continue
        if now.data != currents[name].data:
            problems.append(f"{name}: prior bytes not restored")
    return problems


# A bundle's intent journal. Before the first name of a bundle is installed,
# ``.<lock-target-name>.bundle-journal`` is written and fsynced in the bundle
# directory: for every pending name its prior and new SHA-256 and the staged
# and rollback copies (fsynced too) that can rebuild either side. It is
# removed only once every name is the new generation and the directory is
# fsynced, or a rollback restored every prior file. A journal found later is
# the mark of an interrupted transaction (SIGKILL, power loss), and the next
# writer of that bundle (``install_bundle``, or any :func:`writer_lock` /
# install on the lock target, which share the lock) settles it before doing
# anything else, under the lock:
# - every name already holds its new bytes (or is absent, for a deletion):
#   the transaction completed; only the copies and the journal are removed;
# - otherwise every name holding its new bytes is put back from its rollback
#   copy (or removed, when it was created), so the set is all old again;
# - a name holding neither side, or a needed copy that is missing or has other
#   bytes, is ``bundle_recovery_conflict``: nothing is touched and the journal
#   stays, so no later run can guess.

BUNDLE_JOURNAL_VERSION = 1


def _journal_name(lock_target: Path) -> str:
    return f".{lock_target.name}.bundle-journal"


def _state_at(dir_fd: int, name: str, shown: str) -> str:
    """``missing``, ``file:<sha256>`` or ``symlink:<text>`` for one entry (never followed)."""
    try:
        st = _stat_name(dir_fd, name)
        if st is not None and stat.S_ISLNK(st.st_mode):
            return "symlink:" + os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        raise _os_error(exc, "cannot inspect", shown) from exc
    current = _read_current(dir_fd, name, shown)
    return "missing" if current.data is None else "file:" + _sha256(current.data)


def _prior_state(entry: Mapping[str, Any]) -> str:
    if entry.get("prior_link") is not None:
        return "symlink:" + entry["prior_link"]
    sha = entry["prior_sha256"]
    return "missing" if sha is None else "file:" + sha


def _new_state(entry: Mapping[str, Any]) -> str:
    sha = entry["new_sha256"]
    return "missing" if sha is None else "file:" + sha


def _write_journal(dir_fd: int, journal: str, body: dict[str, Any], shown: str) -> None:
    staged = _stage(dir_fd, journal, artifact_bytes(body), None, "staged", shown, None)
    try:
        os.replace(staged.name, journal, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        _discard_staged(staged)  # never installed: our staged name goes
        raise
    try:
        os.fsync(dir_fd)
    finally:
        with suppress(OSError):
            staged.close()


def _remove_journal(dir_fd: int, journal: str) -> str | None:
    """Unlink the journal and fsync the directory; a problem is returned, not raised."""
    try:
        os.unlink(journal, dir_fd=dir_fd)
        os.fsync(dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"bundle_journal_cleanup_failed: {exc}"
    return None


def _journal_entries(body: Any, shown: str) -> list[dict[str, Any]]:
    def bad(why: str) -> WriterError:
        return WriterError("bundle_journal_invalid", f"bundle journal {why}", shown)

    if not isinstance(body, dict) or body.get("version") != BUNDLE_JOURNAL_VERSION:
        raise bad("has an unknown version")
    entries = body.get("entries")
    if not isinstance(entries, list) or not entries:
        raise bad("lists no entries")
    for entry in entries:
        if not isinstance(entry, dict):
            raise bad("entry is not an object")
        for key in ("name", "prior_sha256", "new_sha256", "staged", "rollback", "prior_link"):
            value = entry.get(key)
            if value is not None and not isinstance(value, str):
                raise bad(f"field {key} is not a string")
        for key in ("name", "staged", "rollback"):
            value = entry.get(key)
            if value is not None:
                _check_name(value, shown)
        if entry.get("name") is None:
            raise bad("entry has no name")
    return entries


def _settle_journal(dir_fd: int, journal: str, shown_dir: str) -> dict[str, Any] | None:
    """Complete or roll back the interrupted transaction ``journal`` records.

    Returns ``None`` when there is no journal, else what was done
    (``{"action": "completed" | "rolled_back", "names": [...]}``). Raises
    ``bundle_recovery_conflict`` (nothing touched) when the files match
    neither generation.
    """
    shown = f"{shown_dir}/{journal}"
    raw = _read_current(dir_fd, journal, shown)
    if raw.data is None:
        return None
    try:
        body = loads_strict(raw.data)
    except StrictJSONError as exc:
        raise WriterError(
            "bundle_journal_invalid", f"bundle journal is not strict JSON: {exc.message}", shown
        ) from None
    entries = _journal_entries(body, shown)
    now = {e["name"]: _state_at(dir_fd, e["name"], f"{shown_dir}/{e['name']}") for e in entries}
    complete = all(now[e["name"]] == _new_state(e) for e in entries)
    restore: list[dict[str, Any]] = []
    if not complete:
        conflicts = []
        for entry in entries:
            current, prior = now[entry["name"]], _prior_state(entry)
            if current == prior:
                continue
            if current != _new_state(entry):
                conflicts.append(f"{entry['name']}: holds neither the old nor the new bytes")
                continue
            if prior != "missing":
                copy = entry["rollback"]
                if copy is None or _state_at(dir_fd, copy, shown) != prior:
                    conflicts.append(f"{entry['name']}: its rollback copy is missing or altered")
                    continue
            restore.append(entry)
        if conflicts:
            raise WriterError(
                "bundle_recovery_conflict",
                "an interrupted bundle transaction cannot be settled: " + "; ".join(conflicts),
                shown,
                problems=conflicts,
            )
        for entry in reversed(restore):
            try:
                if _prior_state(entry) == "missing":
                    os.unlink(entry["name"], dir_fd=dir_fd)
                else:
                    os.replace(
                        entry["rollback"], entry["name"], src_dir_fd=dir_fd, dst_dir_fd=dir_fd
                    )
            except OSError as exc:
                raise _os_error(exc, "bundle recovery failed", shown) from exc
        try:
            os.fsync(dir_fd)
        except OSError as exc:
            raise _os_error(exc, "bundle recovery fsync failed", shown) from exc
    for entry in entries:
        for key in ("staged", "rollback"):
            copy = entry[key]
            if copy is None:
                continue
            with suppress(OSError):
                named = _stat_name(dir_fd, copy)
                if named is not None and (
                    stat.S_ISREG(named.st_mode) or stat.S_ISLNK(named.st_mode)
                ):
                    os.unlink(copy, dir_fd=dir_fd)
    problem = _remove_journal(dir_fd, journal)
    if problem is not None:
        raise WriterError("io_error", problem, shown)
    return {
        "action": "completed" if complete else "rolled_back",
        "names": [e["name"] for e in (entries if complete else restore)],
    }


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


def pending_bundle(lock_target: str | os.PathLike[str]) -> Path | None:
    """The journal of an interrupted bundle transaction locked on ``lock_target``, if any.

    For readers: a bundle torn by a kill between its renames holds a mix of
    old and new files until the journal is settled, so its digests disagree
    for a reason that is neither tampering nor staleness. A reader reports
    such a bundle as *recovery pending* (naming what settles it) instead of a
    hash mismatch. Only ``lstat``: no lock is taken, nothing is created, a
    symbolic link is never followed.
    """
    target = Path(lock_target)
    journal = target.parent / _journal_name(target)
    try:
        os.lstat(journal)
    except OSError:
        return None
    return journal


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
    the first run after a kill failed. Calling this first (cheap when there
    is no journal: one ``lstat``, no lock file created) settles under the
    bundle's lock, so the writer reads a whole generation and does its job.
    Returns what was done (:func:`recover_bundle`), or ``None``.
    """
    if pending_bundle(lock_target) is None:
        return None
    return recover_bundle(directory, lock_target, lock_timeout=lock_timeout)


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
    shown_dir = str(directory)
    names = list(changes)
    new: dict[str, bytes | None] = {}
    for name in names:
        _check_name(name, str(directory / name))
        if name not in expected:
            raise ValueError(f"no expected snapshot for {name!r}")
        value = changes[name]
        new[name] = None if value is None else _to_bytes(value)

    def shown(name: str) -> str:
        return str(directory / name)

    owned_lock = lock is None
    held = _acquire(Path(lock_target), lock_timeout) if lock is None else lock
    try:
        if not owned_lock:
            lock_dir_fd = _open_dir(Path(lock_target).parent)
            try:
                _check_lock(held, Path(lock_target), lock_dir_fd)
            finally:
                os.close(lock_dir_fd)
        dir_fd = _open_dir(directory)
    except BaseException:
        if owned_lock:
            held.release()
        raise

    staged: dict[str, _Staged] = {}
    rollback: dict[str, _Staged] = {}

    def discard_all() -> None:
        for item in [*staged.values(), *rollback.values()]:
            _discard_staged(item)

    def abort() -> None:
        discard_all()
        with suppress(OSError):
            os.close(dir_fd)
        if owned_lock:
            held.release()

    journal = _journal_name(Path(lock_target))
    journal_written = False
    window = ExitStack()
    swept: list[str] = []
    try:
        _call_fault(fault, "bundle_after_lock")
        settled = _settle_journal(dir_fd, journal, shown_dir) or held.settled
        guarded = {*names, journal}
        swept = _sweep_leftovers(dir_fd, guarded.__contains__)
        currents = {
            name: _read_current(dir_fd, name, shown(name), expected[name].data) for name in names
        }
        for name in names:
            try:
                _compare_input(currents[name], expected[name], shown(name))
            except WriterError as exc:
                if settled is None:
                    raise
                raise WriterError(
                    "input_changed",
                    f"an interrupted bundle transaction was {settled['action']} before this "
                    "write, so the files are not what was read; re-read them and retry",
                    shown(name),
                    recovered=settled,
                ) from exc
        pending = [name for name in names if new[name] != currents[name].data]
        if not pending:
            abort()
            return BundleReport(shown_dir, _unchanged_reports(directory, names, new, currents))
        for name in pending:
            data = new[name]
            if data is not None:
                staged[name] = _stage(
                    dir_fd, name, data, currents[name].mode, "staged", shown(name), fault, "bundle_"
                )
            prior = currents[name].data
            if prior is not None:
                rollback[name] = _stage(
                    dir_fd, name, prior, currents[name].mode, "rollback", shown(name), None
                )
        _call_fault(fault, "bundle_before_recheck")
        for name in pending:
            now = _read_current(dir_fd, name, shown(name), expected[name].data)
            _compare_input(now, expected[name], shown(name))
        for name, item in [*staged.items(), *rollback.items()]:
            _verify_staged(item, shown(name))
        _call_fault(fault, "bundle_before_journal")
        entries = [
            {
                "name": name,
                "new_sha256": None if new[name] is None else staged[name].sha256,
                "prior_sha256": None
                if currents[name].data is None
                else _sha256(currents[name].data),  # type: ignore[arg-type]
                "rollback": rollback[name].name if name in rollback else None,
                "staged": staged[name].name if name in staged else None,
            }
            for name in pending
        ]
        body = {"entries": entries, "pid": os.getpid(), "version": BUNDLE_JOURNAL_VERSION}
        journal_written = True
        _write_journal(dir_fd, journal, body, f"{shown_dir}/{journal}")
        _call_fault(fault, "bundle_after_journal")
        # Unwinding signals wait until the set is all new or all old again.
        window.enter_context(cli.deferred_interrupts())
    except BaseException as exc:
        if journal_written:
            _remove_journal(dir_fd, journal)
        abort()
        err = _pre_install_error(exc, shown_dir)
        window.close()
        if err is exc:
            raise
        raise err from exc

    installed: list[str] = []
    step = ""
    try:
        for name in pending:
            step = f"bundle_before_install:{name}"
            _call_fault(fault, step)
            step = f"bundle_install:{name}"
            data = new[name]
            if data is None:
                # Delete only the very inode that was rechecked.
                named = _stat_name(dir_fd, name)
                generation = expected[name].generation
                if (
                    named is None
                    or generation is None
                    or _identity(named) != (generation.device, generation.inode)
                ):
                    raise WriterError(
                        "input_changed", f"{shown(name)} changed before removal", shown(name)
                    )
                os.unlink(name, dir_fd=dir_fd)
            elif currents[name].data is None:
                try:
                    os.link(
                        staged[name].name,
                        name,
                        src_dir_fd=dir_fd,
                        dst_dir_fd=dir_fd,
                        follow_symlinks=False,
                    )
                except FileExistsError:
                    raise WriterError(
                        "input_changed", f"{shown(name)} was created meanwhile", shown(name)
                    ) from None
            else:
                os.replace(staged[name].name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            installed.append(name)
            step = f"bundle_after_install:{name}"
            _call_fault(fault, step)
    except BaseException as exc:  # noqa: BLE001 - re-raised by _raise_bundle_failure
        # Which names were installed is read from the directory, not from a
        # list an exception may have cut short after the syscall.
        installed = [
            name
            for name in pending
            if (
                _stat_name(dir_fd, name) is None
                if new[name] is None
                else _names_inode(dir_fd, name, staged[name].identity)
            )
        ]
        problems = _rollback(dir_fd, installed, currents, staged, rollback)
        _raise_bundle_failure(
            exc, step, problems, dir_fd=dir_fd, journal=journal, abort=abort, window=window,
            shown_dir=shown_dir, restored="every file restored to its prior bytes",
        )  # fmt: skip

    with window:
        for name in pending:
            cli.note_landed(shown(name))
        report = _bundle_after_install(
            directory,
            dir_fd,
            names,
            pending,
            new,
            currents,
            staged,
            rollback,
            fault,
            held if owned_lock else None,
            journal,
            swept,
        )
    return report


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


def _bundle_after_install(
    directory: Path,
    dir_fd: int,
    names: list[str],
    pending: list[str],
    new: Mapping[str, bytes | None],
    currents: Mapping[str, _Current],
    staged: Mapping[str, _Staged],
    rollback: Mapping[str, _Staged],
    fault: FaultHook | None,
    owned_lock: WriterLock | None,
    journal: str,
    swept: list[str],
) -> BundleReport:
    """Verify, clean up and fsync after every name is installed; never raises."""
    per_file: dict[str, list[str]] = {name: [] for name in pending}
    verify_failed: set[str] = set()
    bundle_warnings: list[str] = [f"leftover_removed: {n}" for n in swept]
    try:
        _call_fault(fault, "bundle_before_verify")
        for name in pending:
            if new[name] is None:
                if _stat_name(dir_fd, name) is not None:
                    verify_failed.add(name)
                    bundle_warnings.append(f"installed_verification_failed: {name} reappeared")
                continue
            problem = _verify_installed(dir_fd, name, staged[name])
            if problem is not None:
                verify_failed.add(name)
                per_file[name].append(f"installed_verification_failed: {problem}")
    except Exception as exc:  # noqa: BLE001 - after install nothing may escape
        for name in pending:
            verify_failed.add(name)
            per_file[name].append(f"installed_verification_failed: {exc!r}")
        bundle_warnings.append(f"installed_verification_failed: {exc!r}")
    for name, item in staged.items():
        if currents[name].data is None:
            try:
                named = _stat_name(dir_fd, item.name)
                if named is not None and _identity(named) == item.identity:
                    os.unlink(item.name, dir_fd=dir_fd)
            except Exception as exc:  # noqa: BLE001
                per_file[name].append(f"staged_cleanup_failed: {exc!r}")
        with suppress(OSError):
            item.close()
    for name, item in rollback.items():
        if not _discard_staged(item):
            per_file[name].append("rollback_copy_cleanup_failed")
    fsync_failed = False
    try:
        _call_fault(fault, "bundle_before_dir_fsync")
        os.fsync(dir_fd)
    except Exception as exc:  # noqa: BLE001
        fsync_failed = True
        bundle_warnings.append(f"installed_directory_fsync_failed: {exc!r}")
        for name in pending:
            per_file[name].append(f"installed_directory_fsync_failed: {exc!r}")
    if not fsync_failed:
        # Only a durable new generation may drop the journal that can undo it.
        try:
            _call_fault(fault, "bundle_before_journal_removal")
            problem = _remove_journal(dir_fd, journal)
        except Exception as exc:  # noqa: BLE001
            problem = f"bundle_journal_cleanup_failed: {exc!r}"
        if problem is not None:
            bundle_warnings.append(problem)
    try:
        os.close(dir_fd)
    except Exception as exc:  # noqa: BLE001
        bundle_warnings.append(f"directory_close_failed: {exc!r}")
    if owned_lock is not None:
        bundle_warnings.extend(owned_lock.release())

    reports = _unchanged_reports(directory, [n for n in names if n not in pending], new, currents)
    removed: list[RemovedFile] = []
    for name in names:
        if name not in pending:
            continue
        prior = currents[name].data
        input_sha = None if prior is None else _sha256(prior)
        data = new[name]
        if data is None:
            removed.append(RemovedFile(name, input_sha or ""))
            continue
        if name in verify_failed:
            state = "installed_verification_failed"
        elif fsync_failed:
            state = "installed_directory_fsync_failed"
        else:
            state = "durable"
        reports[name] = WriteReport(
            str(directory / name),
            state,
            True,
            input_sha,
            _sha256(data),
            tuple(per_file[name]),
            None,
        )
    ordered = {name: reports[name] for name in names if name in reports}
    return BundleReport(str(directory), ordered, tuple(removed), tuple(bundle_warnings))


# --------------------------------------------------------------------------- entries

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
    shown_dir = str(directory)
    names = list(bodies)
    new: dict[str, bytes] = {}
    for name in names:
        _check_name(name, str(directory / name))
        if name not in expected:
            raise ValueError(f"no expected entry snapshot for {name!r}")
        new[name] = _to_bytes(bodies[name])

    def shown(name: str) -> str:
        return str(directory / name)

    owned_lock = lock is None
    held = _acquire(Path(lock_target), lock_timeout) if lock is None else lock
    try:
        if not owned_lock:
            lock_dir_fd = _open_dir(Path(lock_target).parent)
            try:
                _check_lock(held, Path(lock_target), lock_dir_fd)
            finally:
                os.close(lock_dir_fd)
        dir_fd = _open_dir(directory)
    except BaseException:
        if owned_lock:
            held.release()
        raise

    staged: dict[str, _Staged] = {}

    def abort() -> None:
        for item in staged.values():
            _discard_staged(item)
        with suppress(OSError):
            os.close(dir_fd)
        if owned_lock:
            held.release()

    journal = _journal_name(Path(lock_target))
    journal_written = False
    window = ExitStack()
    try:
        _call_fault(fault, "entries_after_lock")
        # An interrupted earlier transaction is settled first (see install_bundle).
        _settle_journal(dir_fd, journal, shown_dir)
        _sweep_leftovers(dir_fd, {*names, journal}.__contains__)
        for name in names:
            _compare_entry(_read_entry_at(dir_fd, name, shown(name)), expected[name], shown(name))
        pending = [
            name
            for name in names
            if not (expected[name].kind == "file" and expected[name].data == new[name])
        ]
        # Staging is write + fsync per body; concurrent fsyncs share journal
        # commits, so a 50-file batch stages in a fraction of the serial time.
        # Unwinding signals wait until every staged file is collected as ours
        # (the worker threads go on staging meanwhile), so a SIGTERM here ends
        # in abort() removing all of them rather than leaving the late ones.
        with cli.deferred_interrupts():
            with ThreadPoolExecutor(max_workers=_ENTRY_THREADS) as pool:
                futures = {
                    name: pool.submit(
                        _stage,
                        dir_fd,
                        name,
                        new[name],
                        expected[name].mode,
                        "staged",
                        shown(name),
                        fault,
                        "entries_",
                    )
                    for name in pending
                }
            failures = []
            for name, future in futures.items():
                try:
                    staged[name] = future.result()
                except BaseException as exc:  # noqa: BLE001 - re-raised below, after collecting
                    failures.append(exc)
        if failures:
            raise failures[0]
        _call_fault(fault, "entries_before_recheck")
        for name in pending:
            _compare_entry(_read_entry_at(dir_fd, name, shown(name)), expected[name], shown(name))
            _verify_staged(staged[name], shown(name))
        # The intent journal names every recovery backup before the first link.
        planned = {n: _staged_name(n, "recovery") for n in pending if expected[n].kind != "missing"}
        entries = [
            {
                "name": name,
                "new_sha256": staged[name].sha256,
                "prior_link": expected[name].link if expected[name].kind == "symlink" else None,
                "prior_sha256": _sha256(expected[name].data)  # type: ignore[arg-type]
                if expected[name].kind == "file"
                else None,
                "rollback": planned.get(name),
                "staged": staged[name].name,
            }
            for name in pending
        ]
        if pending:
            journal_written = True
            body = {"entries": entries, "pid": os.getpid(), "version": BUNDLE_JOURNAL_VERSION}
            _write_journal(dir_fd, journal, body, f"{shown_dir}/{journal}")
        window.enter_context(cli.deferred_interrupts())
    except BaseException as exc:
        if journal_written:
            _remove_journal(dir_fd, journal)
        abort()
        err = _pre_install_error(exc, shown_dir)
        window.close()
        if err is exc:
            raise
        raise err from exc

    backups: dict[str, str] = {}
    installed: list[str] = []
    step = ""
    try:
        for name in pending:
            step = f"entries_before_install:{name}"
            _call_fault(fault, step)
            step = f"entries_install:{name}"
            prior = expected[name]
            if prior.kind == "missing":
                try:
                    os.link(
                        staged[name].name,
                        name,
                        src_dir_fd=dir_fd,
                        dst_dir_fd=dir_fd,
                        follow_symlinks=False,
                    )
                except FileExistsError:
                    raise WriterError(
                        "input_changed", f"{shown(name)} was created meanwhile", shown(name)
                    ) from None
            else:
                backup = planned[name]
                os.link(name, backup, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
                backups[name] = backup
                linked = _stat_name(dir_fd, backup)
                generation = prior.generation
                if (
                    linked is None
                    or generation is None
                    or _identity(linked) != (generation.device, generation.inode)
                ):
                    raise WriterError(
                        "input_changed", f"{shown(name)} changed before its backup", shown(name)
                    )
                step = f"entries_after_backup:{name}"
                _call_fault(fault, step)
                step = f"entries_install:{name}"
                os.replace(staged[name].name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            installed.append(name)
            step = f"entries_after_install:{name}"
            _call_fault(fault, step)
    except BaseException as exc:  # noqa: BLE001 - re-raised by _raise_bundle_failure
        problems = _restore_entries(dir_fd, pending, installed, backups, expected, staged, shown)
        _raise_bundle_failure(
            exc, step, problems, dir_fd=dir_fd, journal=journal, abort=abort, window=window,
            shown_dir=shown_dir, restored="every target restored from its recovery backup",
        )  # fmt: skip

    with window:
        for name in pending:
            cli.note_landed(shown(name))
        journal_fd = os.dup(dir_fd)  # _entries_after_install closes dir_fd
        try:
            report = _entries_after_install(
                directory,
                dir_fd,
                names,
                pending,
                new,
                expected,
                staged,
                backups,
                fault,
                None,  # the lock is released below, after the journal is gone
            )
            extra: list[str] = []
            if pending and report.durability_state != "installed_directory_fsync_failed":
                # Only a durable new generation may drop the journal that can undo it.
                problem = _remove_journal(journal_fd, journal)
                if problem is not None:
                    extra.append(problem)
        finally:
            os.close(journal_fd)
            if owned_lock:
                extra_release = held.release()
        if owned_lock:
            extra.extend(extra_release)
        if extra:
            report = BundleReport(
                report.directory, report.files, report.removed, (*report.warnings, *extra)
            )
    return report


def _restore_entries(
    dir_fd: int,
    pending: list[str],
    installed: list[str],
    backups: Mapping[str, str],
    expected: Mapping[str, EntrySnapshot],
    staged: Mapping[str, _Staged],
    shown: Callable[[str], str],
) -> list[str]:
    """Undo a partial commit in reverse order; return what could not be restored."""
    problems: list[str] = []
    touched = [name for name in pending if name in installed or name in backups]
    for name in reversed(touched):
        try:
            if name in installed and name in backups:
                os.replace(backups[name], name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            elif name in installed:
                named = _stat_name(dir_fd, name)
                if named is not None and _identity(named) == staged[name].identity:
                    os.unlink(name, dir_fd=dir_fd)
                elif named is not None:
                    problems.append(f"{name}: created name was substituted; left in place")
            else:
                # Backup linked, target not yet replaced: drop the second link only.
                named = _stat_name(dir_fd, backups[name])
                generation = expected[name].generation
                if (
                    named is not None
                    and generation is not None
                    and _identity(named) == (generation.device, generation.inode)
                ):
                    os.unlink(backups[name], dir_fd=dir_fd)
                elif named is not None:
                    problems.append(f"{name}: recovery backup was substituted; left in place")
        except OSError as exc:
            problems.append(f"{name}: {exc}")
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        problems.append(f"directory fsync: {exc}")
    for name in touched:
        try:
            now = _read_entry_at(dir_fd, name, shown(name))
        except WriterError as exc:
            problems.append(f"{name}: {exc.message}")
            continue
        prior = expected[name]
        same_identity = (
            now.generation is None
            or prior.generation is None
            or (now.generation.device, now.generation.inode)
            == (prior.generation.device, prior.generation.inode)
        )
        if now.kind != prior.kind or now.data != prior.data or now.link != prior.link:
            problems.append(f"{name}: prior entry not restored")
        elif not same_identity:
            problems.append(f"{name}: restored entry is another inode")
    return problems


def _entries_after_install(
    directory: Path,
    dir_fd: int,
    names: list[str],
    pending: list[str],
    new: Mapping[str, bytes],
    expected: Mapping[str, EntrySnapshot],
    staged: Mapping[str, _Staged],
    backups: Mapping[str, str],
    fault: FaultHook | None,
    owned_lock: WriterLock | None,
) -> BundleReport:
    """Verify, remove staged links and recovery backups, fsync; never raises."""
    per_file: dict[str, list[str]] = {name: [] for name in pending}
    verify_failed: set[str] = set()
    bundle_warnings: list[str] = []
    try:
        _call_fault(fault, "entries_before_verify")
        for name in pending:
            problem = _verify_installed(dir_fd, name, staged[name])
            if problem is not None:
                verify_failed.add(name)
                per_file[name].append(f"installed_verification_failed: {problem}")
    except Exception as exc:  # noqa: BLE001 - after install nothing may escape
        verify_failed.update(pending)
        bundle_warnings.append(f"installed_verification_failed: {exc!r}")

    def cleanup(name: str) -> None:
        item = staged[name]
        try:
            if expected[name].kind == "missing":
                named = _stat_name(dir_fd, item.name)
                if named is not None and _identity(named) == item.identity:
                    os.unlink(item.name, dir_fd=dir_fd)
            if name in backups:
                named = _stat_name(dir_fd, backups[name])
                generation = expected[name].generation
                if (
                    named is not None
                    and generation is not None
                    and _identity(named) == (generation.device, generation.inode)
                ):
                    os.unlink(backups[name], dir_fd=dir_fd)
                elif named is not None:
                    per_file[name].append("recovery_backup_substituted: left in place")
        except Exception as exc:  # noqa: BLE001
            per_file[name].append(f"recovery_cleanup_failed: {exc!r}")
        with suppress(OSError):
            item.close()

    # Removing a backup frees the old inode's blocks; done concurrently it
    # costs one journal commit instead of one per file.
    with ThreadPoolExecutor(max_workers=_ENTRY_THREADS) as pool:
        list(pool.map(cleanup, pending))
    fsync_failed = False
    try:
        _call_fault(fault, "entries_before_dir_fsync")
        os.fsync(dir_fd)
    except Exception as exc:  # noqa: BLE001
        fsync_failed = True
        bundle_warnings.append(f"installed_directory_fsync_failed: {exc!r}")
    try:
        os.close(dir_fd)
    except Exception as exc:  # noqa: BLE001
        bundle_warnings.append(f"directory_close_failed: {exc!r}")
    if owned_lock is not None:
        bundle_warnings.extend(owned_lock.release())
    reports: dict[str, WriteReport] = {}
    for name in names:
        sha = _sha256(new[name])
        prior = expected[name]
        input_sha = _sha256(prior.data) if prior.data is not None else None
        if name not in pending:
            reports[name] = WriteReport(str(directory / name), "unchanged", False, sha, sha)
            continue
        if name in verify_failed:
            state = "installed_verification_failed"
        elif fsync_failed:
            state = "installed_directory_fsync_failed"
        else:
            state = "durable"
        reports[name] = WriteReport(
            str(directory / name), state, True, input_sha, sha, tuple(per_file[name])
        )
    return BundleReport(str(directory), reports, (), tuple(bundle_warnings))


def _raise_bundle_failure(
    exc: BaseException,
    step: str,
    problems: list[str],
    *,
    dir_fd: int,
    journal: str,
    abort: Callable[[], None],
    window: ExitStack,
    shown_dir: str,
    restored: str,
) -> NoReturn:
    """End a failed bundle after its rollback, for ``install_bundle`` and ``replace_entries``.

    The intent journal is dropped only once every name is back to its old
    generation; with problems it stays, so the next writer of the bundle settles
    it. An interrupt (not an ``Exception``) propagates as itself, after cleanup.
    """
    if not problems:
        problem = _remove_journal(dir_fd, journal)
        if problem is not None:
            problems.append(problem)
    # With problems the journal stays: the next writer settles it.
    abort()
    window.close()
    if not isinstance(exc, Exception):
        raise exc
    code = "bundle_rollback_incomplete" if problems else "bundle_rolled_back"
    message = f"bundle failed at {step} ({exc}); "
    message += "rollback incomplete: " + "; ".join(problems) if problems else restored
    raise WriterError(
        code, message, shown_dir, failed_step=step, cause=repr(exc), problems=problems
    ) from exc
