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

The protocol lives in small modules: ``values`` (refusal, generations,
reports), ``fs`` (descriptor-anchored helpers), ``snapshot``, ``lock``,
``staging``, ``backup``, ``journal`` (a bundle's intent journal and its
settlement), ``transaction`` (the one skeleton every writer runs, with a
strategy for what differs), ``install``, ``bundle`` and ``entries``. This
package re-exports every public name, and the private ones tests reach.
"""

from __future__ import annotations

import os  # tests patch ``writer.os`` (the module itself)
import sys
import types
from typing import Any

from rvault_contracts.writer import fs
from rvault_contracts.writer.bundle import (
    install_bundle,
    pending_bundle,
    recover_bundle,
    settle_pending_bundle,
)
from rvault_contracts.writer.entries import ENTRY_KINDS, EntrySnapshot, read_entry, replace_entries
from rvault_contracts.writer.fs import _COMPARE_CHUNK, _stream_equal, _write_all
from rvault_contracts.writer.install import install
from rvault_contracts.writer.lock import WriterLock, lock_path_for, writer_lock
from rvault_contracts.writer.snapshot import _read_current, read_snapshot
from rvault_contracts.writer.values import (
    DURABILITY_STATES,
    SNAPSHOT_READ_ATTEMPTS,
    STAGED_VERIFY_ATTEMPTS,
    BundleReport,
    FaultHook,
    FileGeneration,
    RemovedFile,
    Snapshot,
    StagedCandidateConflictError,
    WriteReport,
    WriterError,
)

__all__ = [
    "DURABILITY_STATES",
    "ENTRY_KINDS",
    "SNAPSHOT_READ_ATTEMPTS",
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

#: Helpers the writer steps look up on :mod:`.fs` at call time. Replacing one
#: on this package (a test injecting a full disk or a racing edit) replaces it
#: there too, so the fault reaches every step as it did in the single module.
_FS_SEAMS = frozenset({"_stream_equal", "_write_all"})
_ = (_COMPARE_CHUNK, _read_current, _stream_equal, _write_all, os)  # re-exported for tests


class _WriterPackage(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FS_SEAMS:
            setattr(fs, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _WriterPackage
