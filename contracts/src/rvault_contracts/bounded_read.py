"""The one bounded, no-follow reader of an input file every owner shares.

A digest or a parse must describe one stable version of one regular file, so
the path is ``lstat``-checked (a symlink, directory, FIFO or device is refused
before anything is opened), opened once with ``O_NOFOLLOW | O_NONBLOCK``,
checked with ``fstat`` on that descriptor, read up to a byte bound, and the
descriptor's generation before the read must equal the path's ``lstat``
after it. Every failure is a :class:`~rvault_contracts.cli.Refusal` with one
of the codes below, whoever reads (a deck, a rendered PDF, a manifest PDF).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.errors import Refusal

INPUT_MISSING = "input_missing"
INPUT_UNREADABLE = "input_unreadable"
SYMLINK_REFUSED = "symlink_refused"
NOT_REGULAR_FILE = "not_regular_file"
INPUT_TOO_LARGE = "input_too_large"
INPUT_CHANGED = "input_changed"
EMPTY_INPUT = "empty_input"

#: Every code :func:`read_bounded` and :func:`check_path` refuse with.
CODES = (
    INPUT_MISSING,
    INPUT_UNREADABLE,
    SYMLINK_REFUSED,
    NOT_REGULAR_FILE,
    INPUT_TOO_LARGE,
    INPUT_CHANGED,
    EMPTY_INPUT,
)

_CHUNK = 1 << 20


@dataclass(frozen=True)
class BoundedFile:
    """The exact bytes read and the generation they belong to."""

    path: Path
    data: bytes
    generation: tuple[int, ...] = ()

    @property
    def sha256(self) -> str:
        return sha256_bytes(self.data)

    def fingerprint(self) -> dict[str, object]:
        return {"algorithm": "sha256", "digest": self.sha256, "size_bytes": len(self.data)}


def file_generation(st: os.stat_result) -> tuple[int, ...]:
    """Identity of one file version: device, inode, size, mtime and ctime (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def check_path(path: Path, label: str = "file") -> os.stat_result:
    """``lstat`` of the path, or the refusal for it.

    One ``lstat``, every ``OSError`` mapped to a stable code (a missing path
    or parent directory is ``input_missing``, any other failure
    ``input_unreadable``), then a symlink or a non-regular file is refused.
    A caller's pre-check and the read both start here.
    """
    shown = str(path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise Refusal(INPUT_MISSING, f"the {label} does not exist", shown) from None
        raise Refusal(INPUT_UNREADABLE, f"cannot stat the {label}: {exc.strerror}", shown) from None
    if stat.S_ISLNK(st.st_mode):
        raise Refusal(SYMLINK_REFUSED, f"the {label} path is a symlink", shown)
    if not stat.S_ISREG(st.st_mode):
        raise Refusal(NOT_REGULAR_FILE, f"the {label} path is not a regular file", shown)
    return st


def _open(path: Path, label: str) -> int:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags)
    except OSError as exc:
        shown = str(path)
        if exc.errno == errno.ELOOP:
            raise Refusal(SYMLINK_REFUSED, f"the {label} path is a symlink", shown) from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):  # removed since it was checked
            raise Refusal(INPUT_MISSING, f"the {label} does not exist", shown) from None
        raise Refusal(INPUT_UNREADABLE, f"cannot open the {label}: {exc.strerror}", shown) from None


def _read_within(fd: int, max_bytes: int, label: str, shown: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while chunk := os.read(fd, _CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise Refusal(
                INPUT_TOO_LARGE, f"the {label} grew past the input limit while read", shown
            )
        chunks.append(chunk)
    return b"".join(chunks)


def read_bounded(
    path: Path, max_bytes: int, *, label: str = "file", empty_code: str = EMPTY_INPUT
) -> BoundedFile:
    """The exact bytes of a regular, non-symlink file, at most ``max_bytes``.

    One generation: the descriptor's ``fstat`` before the read must equal the
    path's ``lstat`` after it, so digest, size and anything parsed from the
    bytes describe one stable version of the file.
    """
    path = Path(path)
    shown = str(path)
    check_path(path, label)
    fd = _open(path, label)
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode):
            raise Refusal(NOT_REGULAR_FILE, f"the {label} path is not a regular file", shown)
        if fst.st_size > max_bytes:
            raise Refusal(
                INPUT_TOO_LARGE,
                f"the {label} is {fst.st_size} bytes; the limit is {max_bytes}",
                shown,
            )
        data = _read_within(fd, max_bytes, label, shown)
    except OSError as exc:
        raise Refusal(INPUT_UNREADABLE, f"cannot read the {label}: {exc.strerror}", shown) from None
    finally:
        os.close(fd)
    if not data:
        raise Refusal(empty_code, f"the {label} is zero bytes", shown)
    try:
        after = os.lstat(path)
    except OSError:  # removed or made unreachable after the read
        raise Refusal(INPUT_CHANGED, f"the {label} changed while it was read", shown) from None
    if file_generation(after) != file_generation(fst):
        raise Refusal(INPUT_CHANGED, f"the {label} changed while it was read", shown)
    return BoundedFile(path=path, data=data, generation=file_generation(fst))
