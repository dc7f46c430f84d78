"""The writer's values: its refusal, generations and snapshots.

Kept apart from the file-system code so a caller that only reads a
snapshot or catches :class:`WriterError` sees the contract without the
protocol's machinery; the write reports are in :mod:`.reports`, which a
reader never needs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from rvault_contracts.errors import Refusal

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
        return None if self.data is None else hashlib.sha256(self.data).hexdigest()
