"""Reading a RETURNS.json batch file: the one reader ``validate``, ``persist`` and
analysis-writer's ``write`` share.

The file is opened non-blocking (a FIFO must not hang the reader), checked to be a
regular file on the open descriptor, read up to a size bound and decoded strictly
(duplicate keys, NaN/Infinity, bad UTF-8 refused). The refusal codes are
``returns_not_regular_file``, ``returns_unreadable``, ``returns_too_large`` and
``returns_<strict code>``; each caller keeps its own messages and hints through
:class:`ReturnsFileWording`. Light: only the standard library and rvault_contracts.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict_any

__all__ = ["ReturnsFileWording", "read_returns_file"]


@dataclass(frozen=True)
class ReturnsFileWording:
    """A caller's messages and hints; messages are ``str.format`` templates.

    Fields available: ``{path}`` everywhere, ``{reason}`` (the OS error) in
    ``unreadable``, ``{limit}`` (bytes) in ``too_large``, ``{detail}`` (the strict
    JSON message) in ``invalid``.
    """

    not_regular: str
    not_regular_hint: str
    unreadable: str
    unreadable_hint: str
    too_large: str
    too_large_hint: str
    invalid: str
    invalid_hint: str


def read_returns_file(
    path: Path,
    *,
    max_bytes: int,
    wording: ReturnsFileWording,
    follow_symlinks: bool = False,
) -> Any:
    """The batch file at ``path``, decoded strictly, or a :class:`Refusal`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW

    def not_regular() -> Refusal:
        return Refusal(
            "returns_not_regular_file",
            wording.not_regular.format(path=path),
            str(path),
            hint=wording.not_regular_hint,
        )

    try:
        if not follow_symlinks and stat.S_ISLNK(os.lstat(path).st_mode):
            raise not_regular()
        fd = os.open(path, flags)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise not_regular()
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(max_bytes + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        raise Refusal(
            "returns_unreadable",
            wording.unreadable.format(path=path, reason=exc.strerror or exc),
            str(path),
            hint=wording.unreadable_hint,
        ) from None
    if len(data) > max_bytes:
        raise Refusal(
            "returns_too_large",
            wording.too_large.format(path=path, limit=max_bytes),
            str(path),
            hint=wording.too_large_hint,
        )
    try:
        return loads_strict_any(data)
    except StrictJSONError as exc:
        raise Refusal(
            f"returns_{exc.code}",
            wording.invalid.format(path=path, detail=exc.message),
            exc.path,
            hint=wording.invalid_hint,
        ) from None
