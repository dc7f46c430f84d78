"""Transcript, timing sidecar and quality receipt written as one transaction.

The three files of a transcript are only meaningful together (both receipts
bind the transcript's exact bytes), so they are staged, rechecked and
installed by ``rvault_contracts.writer.install_bundle`` under the persistent
lock of the transcript path; any caught failure restores every path to its
exact prior bytes. ``None`` deletes a file (a stale timing sidecar), and a
name left out of ``changes`` is not touched at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.writer import (
    BundleReport,
    FaultHook,
    Snapshot,
    WriterError,
    install_bundle,
    read_snapshot,
    settle_pending_bundle,
    writer_lock,
)

# The names come from sidecars, not the consumers' api: the import's path
# (vtt-cleanup) then loads neither api nor the fetch-result checks.
from rvault_transcript.sidecars import quality_path_for, timing_path_for


@dataclass(frozen=True)
class BundlePaths:
    transcript: Path
    timing: Path
    quality: Path

    @classmethod
    def for_transcript(cls, transcript: Path) -> BundlePaths:
        return cls(transcript, timing_path_for(transcript), quality_path_for(transcript))

    def all(self) -> tuple[Path, Path, Path]:
        return (self.transcript, self.timing, self.quality)


def settle_interrupted(transcript: Path) -> dict[str, Any] | None:
    """Settle a bundle a kill left between its renames, before a writer reads it.

    Every writer of a transcript (``fetch``, ``vtt-cleanup``) calls this
    first, so it judges a whole generation and its own install is not
    refused as ``input_changed`` by the settle inside the writer protocol.
    ``None`` when nothing was pending (one ``lstat``); a bundle that matches
    neither generation is refused as ``bundle_recovery_conflict``.
    """
    return settle_pending_bundle(transcript.parent, transcript)


def read_bundle(paths: BundlePaths) -> dict[str, Snapshot]:
    """No-follow snapshots of the three names (symlinks are refused by the writer)."""
    return {path.name: read_snapshot(path) for path in paths.all()}


def write_bundle(
    paths: BundlePaths,
    changes: Mapping[Path, bytes | None],
    *,
    transcript_read_as: Snapshot,
    fault: FaultHook | None = None,
) -> BundleReport:
    """Install ``changes`` if the transcript is still exactly what the caller judged.

    The lock is held from the final snapshot to the install, so the only way
    the inputs can have moved is a writer that ignores the lock; the writer's
    own recheck catches that too.
    """
    with writer_lock(paths.transcript) as lock:
        snapshots = read_bundle(paths)
        current = snapshots[paths.transcript.name]
        if (
            current.data != transcript_read_as.data
            or current.generation != transcript_read_as.generation
        ):
            raise WriterError(
                "input_changed",
                "the transcript changed after it was read; nothing was written",
                str(paths.transcript),
            )
        ordered = {path.name: changes[path] for path in paths.all() if path in changes}
        expected = {name: snapshots[name] for name in ordered}
        return install_bundle(
            paths.transcript.parent,
            ordered,
            expected=expected,
            lock_target=paths.transcript,
            lock=lock,
            fault=fault,
        )
