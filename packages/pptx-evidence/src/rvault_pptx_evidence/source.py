"""Read the deck's exact bytes without following links.

The fingerprint binds the bytes that were read, so the file is opened once
with ``O_NOFOLLOW`` and checked with ``fstat`` on that same descriptor: a
symlink, directory or device is refused before any content is trusted, and
the source is only ever opened read-only.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits


@dataclass(frozen=True)
class SourceDeck:
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


def check_path(path: Path, label: str = "deck") -> os.stat_result:
    """``lstat`` of the deck path, or the refusal for it: one ``lstat``, every
    ``OSError`` mapped to a stable code (a missing path or parent directory is
    ``input_missing``, any other failure ``input_unreadable``), then a symlink
    or a non-regular file is refused. The supervisor's pre-check and the
    worker's read both start here."""
    shown = str(path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise Refusal(refusals.INPUT_MISSING, f"the {label} does not exist", shown) from None
        raise Refusal(
            refusals.INPUT_UNREADABLE, f"cannot stat the {label}: {exc.strerror}", shown
        ) from None
    if stat.S_ISLNK(st.st_mode):
        raise Refusal(refusals.SYMLINK_REFUSED, f"the {label} path is a symlink", shown)
    if not stat.S_ISREG(st.st_mode):
        raise Refusal(refusals.NOT_REGULAR_FILE, f"the {label} path is not a regular file", shown)
    return st


def read_bounded(
    path: Path, max_bytes: int, *, label: str = "deck", empty_code: str = refusals.EMPTY_INPUT
) -> SourceDeck:
    """The exact bytes of a regular, non-symlink file, at most ``max_bytes``.

    One generation: the descriptor's ``fstat`` before the read must equal the
    path's ``lstat`` after it, so digest, size and anything parsed from the
    bytes describe one stable version of the file.
    """
    shown = str(path)
    check_path(path, label)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refusal(
                refusals.SYMLINK_REFUSED, f"the {label} path is a symlink", shown
            ) from None
        raise Refusal(
            refusals.INPUT_UNREADABLE, f"cannot open the {label}: {exc.strerror}", shown
        ) from None
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode):
            raise Refusal(
                refusals.NOT_REGULAR_FILE, f"the {label} path is not a regular file", shown
            )
        if fst.st_size > max_bytes:
            raise Refusal(
                refusals.INPUT_TOO_LARGE,
                f"the {label} is {fst.st_size} bytes; the limit is {max_bytes}",
                shown,
            )
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise Refusal(
                    refusals.INPUT_TOO_LARGE,
                    f"the {label} grew past the input limit while read",
                    shown,
                )
            chunks.append(chunk)
    except OSError as exc:
        raise Refusal(
            refusals.INPUT_UNREADABLE, f"cannot read the {label}: {exc.strerror}", shown
        ) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if not data:
        raise Refusal(empty_code, f"the {label} is zero bytes", shown)
    try:
        after = os.lstat(path)
    except OSError:  # removed or made unreachable after the read
        raise Refusal(
            refusals.INPUT_CHANGED, f"the {label} changed while it was read", shown
        ) from None
    if file_generation(after) != file_generation(fst):
        raise Refusal(refusals.INPUT_CHANGED, f"the {label} changed while it was read", shown)
    return SourceDeck(path=path, data=data, generation=file_generation(fst))


def read_source(path: Path, limits: Limits = DEFAULT_LIMITS) -> SourceDeck:
    """The exact bytes of a regular, non-symlink deck, bounded in size."""
    return read_bounded(path, limits.max_input_bytes)
