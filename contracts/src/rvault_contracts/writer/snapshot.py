"""Reading a target and comparing it with what the caller read.

:func:`read_snapshot` is the caller's read; ``_read_current`` is the
writer's own read under the lock, compared in place with the snapshot's
bytes so an unchanged large file is never copied again.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.writer import fs
from rvault_contracts.writer.fs import (
    _O_CLOEXEC,
    _O_NOFOLLOW,
    _check_name,
    _os_error,
    _read_fd,
)
from rvault_contracts.writer.values import (
    SNAPSHOT_READ_ATTEMPTS,
    FileGeneration,
    Snapshot,
    WriterError,
)


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
        data = expect if expect is not None and fs._stream_equal(fd, expect) else _read_fd(fd)
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
