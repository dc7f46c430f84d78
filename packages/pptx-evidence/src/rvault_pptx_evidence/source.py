"""Read the deck's exact bytes without following links.

The fingerprint binds the bytes that were read, so the file is opened once
with ``O_NOFOLLOW`` and checked with ``fstat`` on that same descriptor: a
symlink, directory or device is refused before any content is trusted, and
the source is only ever opened read-only. The reader is the contracts' one
bounded no-follow reader (``rvault_contracts.bounded_read``); this module
names it for the deck and applies the deck's byte bound.
"""

from __future__ import annotations

import os
from pathlib import Path

from rvault_contracts import bounded_read
from rvault_contracts.bounded_read import BoundedFile, file_generation, read_bounded

from rvault_pptx_evidence.limits import DEFAULT_LIMITS, Limits

#: A deck as read: its exact bytes and the generation they belong to.
SourceDeck = BoundedFile

__all__ = ["SourceDeck", "check_path", "file_generation", "read_bounded", "read_source"]


def check_path(path: Path, label: str = "deck") -> os.stat_result:
    """``lstat`` of the deck path, or the refusal for it (see ``bounded_read.check_path``)."""
    return bounded_read.check_path(path, label)


def read_source(path: Path, limits: Limits = DEFAULT_LIMITS) -> SourceDeck:
    """The exact bytes of a regular, non-symlink deck, bounded in size."""
    return read_bounded(path, limits.max_input_bytes, label="deck")
