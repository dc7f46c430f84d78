"""Descriptor-anchored file-system helpers every writer step uses.

Every name operation below is relative to a retained directory descriptor
and never follows a symlink; errors become :class:`WriterError` values.
``_stream_equal`` and ``_write_all`` are looked up on this module by their
callers (``fs._stream_equal``), so a test that replaces them on the package
(``rvault_contracts.writer``) reaches every call (see the package's
``__setattr__``).
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import Any

from rvault_contracts.writer.values import FaultHook, WriterError

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = os.O_NOFOLLOW
_O_DIRECTORY = os.O_DIRECTORY
_SYMLINK_ERRNOS = {errno.ELOOP, errno.EMLINK}


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


def _to_bytes(data: bytes | bytearray | memoryview) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"new bytes must be bytes, not {type(data).__name__}")
    return bytes(data)


def _pre_install_error(exc: BaseException, shown: str) -> BaseException:
    if isinstance(exc, OSError):
        return _os_error(exc, "write failed before install", shown)
    return exc
