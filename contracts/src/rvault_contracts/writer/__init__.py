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
snapshots), ``reports`` (what a write returns), ``fs`` (descriptor-anchored
helpers), ``snapshot``, ``lock``, ``staging``, ``backup``, ``journal`` (a
bundle's intent journal and its settlement), ``transaction`` (the one
skeleton every writer runs, with a strategy for what differs), ``install``,
``bundle``, ``entries`` and ``pending`` (whether a bundle awaits recovery).
This package re-exports every public name, and the private ones tests
reach, each loaded from its module on first use.
"""

from __future__ import annotations

import importlib
import os  # noqa: F401 - tests patch ``writer.os`` (the module itself)
import sys
import types
from typing import Any

from rvault_contracts.lazy_exports import lazy_exports

#: Each re-exported name and the submodule that defines it. They are loaded on
#: first use (PEP 562): a reader that only asks :func:`read_snapshot` or
#: :func:`pending_bundle` (``rvault-db status``, the owners' readers) imports
#: ``values``, ``fs``, ``snapshot`` or ``pending`` and never the transaction,
#: staging, lock, backup and entries modules (with ``concurrent.futures`` and
#: ``logging``), about 12 ms of every such command's start.
_EXPORTS = {
    "install_bundle": "bundle",
    "recover_bundle": "bundle",
    "settle_pending_bundle": "bundle",
    "pending_bundle": "pending",
    "ENTRY_KINDS": "entries",
    "EntrySnapshot": "entries",
    "read_entry": "entries",
    "replace_entries": "entries",
    "_COMPARE_CHUNK": "fs",
    "_stream_equal": "fs",
    "_write_all": "fs",
    "install": "install",
    "WriterLock": "lock",
    "lock_path_for": "lock",
    "writer_lock": "lock",
    "_read_current": "snapshot",
    "read_snapshot": "snapshot",
    "DURABILITY_STATES": "values",
    "SNAPSHOT_READ_ATTEMPTS": "values",
    "STAGED_VERIFY_ATTEMPTS": "values",
    "BundleReport": "reports",
    "FaultHook": "values",
    "FileGeneration": "values",
    "RemovedFile": "reports",
    "Snapshot": "values",
    "StagedCandidateConflictError": "values",
    "WriteReport": "reports",
    "WriterError": "values",
}
_SUBMODULES = frozenset(
    {"backup", "bundle", "entries", "fs", "journal", "lock", "pending", "reports", "snapshot",
     "staging", "transaction", "values"}
)  # fmt: skip
# ``install`` names the function, as it always did, not its module.

__all__ = sorted(name for name in _EXPORTS if not name.startswith("_"))


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), _SUBMODULES)


#: Helpers the writer steps look up on :mod:`.fs` at call time. Replacing one
#: on this package (a test injecting a full disk or a racing edit) replaces it
#: there too, so the fault reaches every step as it did in the single module.
_FS_SEAMS = frozenset({"_stream_equal", "_write_all"})


class _WriterPackage(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _EXPORTS:
            # the import system binds a loaded submodule here: ``install`` stays the function
            value = getattr(value, name)
        if name in _FS_SEAMS:
            setattr(importlib.import_module(f"{__name__}.fs"), name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _WriterPackage
