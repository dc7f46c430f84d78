"""Public, light readers of the transcript owner's receipts.

Consumers (returns-persistence verifying citations, tracking-db deriving
source capabilities) import this module and nothing else of the package. It
never imports a media library. Every reader hashes raw on-disk bytes read
without following symlinks, applies the same validators the writer used,
binds the receipt to the caller's owner context (YouTube id, exact media
digest, owner duration) and reports a stable status code instead of raising,
so a stale or forged receipt can only ever make evidence unavailable.

The fetch result (what ``fetch`` / ``vtt-cleanup`` print) is read here too:
:func:`read_fetch_result` returns its claims or raises ``invalid_fetch_result``
with every finding as an :class:`~rvault_contracts.issues.Issue`; the claims
are no evidence until the receipts they name are read with the readers above.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import StrictJSONError, loads_strict_any
from rvault_contracts.writer import WriterError, pending_bundle, read_snapshot

from rvault_transcript.fetch_result import (
    INVALID_FETCH_RESULT,
    FetchResult,
    FetchResultError,
    fetch_result_issues,
    read_fetch_result,
)
from rvault_transcript.policy import durations_match
from rvault_transcript.receipts import (
    QualityReceipt,
    ReceiptError,
    Segment,
    TimingReceipt,
    is_safe_relative_path,
    validate_quality,
    validate_timing,
)
from rvault_transcript.sidecars import quality_path_for, timing_path_for

__all__ = [
    "INVALID_FETCH_RESULT",
    "RECOVERY_PENDING",
    "EvidenceReport",
    "FetchResult",
    "FetchResultError",
    "OwnerContext",
    "QualityReading",
    "ReceiptError",
    "Segment",
    "TimingReading",
    "fetch_result_issues",
    "quality_path_for",
    "read_evidence",
    "read_fetch_result",
    "read_quality",
    "read_timing",
    "timing_path_for",
    "validate_fetch_result",
]


@dataclass(frozen=True)
class OwnerContext:
    """What the caller knows independently of the receipt (never taken from it)."""

    video_id: str | None = None
    media_sha256: str | None = None
    duration_seconds: float | None = None


@dataclass(frozen=True)
class TimingReading:
    """``status``: valid, missing, archival or invalid; ``code`` says why."""

    status: str
    code: str
    message: str
    receipt: TimingReceipt | None = None
    archival: Any = None
    """The decoded v1/minimal document: readable history, never a timing source."""

    @property
    def usable(self) -> bool:
        return self.status == "valid"

    @property
    def segments(self) -> tuple[Segment, ...]:
        return self.receipt.segments if self.receipt is not None else ()

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "code": self.code, "message": self.message}


@dataclass(frozen=True)
class QualityReading:
    status: str
    code: str
    message: str
    receipt: QualityReceipt | None = None

    @property
    def usable(self) -> bool:
        return self.status == "valid"

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "code": self.code, "message": self.message}


@dataclass(frozen=True)
class EvidenceReport:
    transcript_path: str
    transcript_sha256: str | None
    transcript_status: str
    quality: QualityReading
    timing: TimingReading
    word_count: int | None = None

    @property
    def plain_quote(self) -> bool:
        """An ordinary transcript quote needs a hash-current quality receipt."""
        return self.transcript_status == "valid" and self.quality.usable

    @property
    def timed_quote(self) -> bool:
        """A timed quote needs current quality and current, owner-bound v2 timing."""
        return self.plain_quote and self.timing.usable

    @property
    def state(self) -> str:
        """One word for a person: the transcript's status, else valid, unverified or invalid.

        A quality receipt bound to media the caller's context does not name
        (local Whisper on the speaker's own recording, no duration or video
        id in the database) cannot be checked here, so it is ``unverified``:
        neither trusted nor invalid. A bundle torn by a kill whose journal
        awaits recovery is ``recovery_pending`` (code
        :data:`RECOVERY_PENDING`, the message names the command that settles
        it), never a hash mismatch. ``rvault-db status`` and the vault report
        both show this word.
        """
        if self.transcript_status != "valid":
            return self.transcript_status
        if self.quality.status == "missing" or self.quality.code == "owner_context_missing":
            return "unverified"
        return "valid" if self.quality.usable else "invalid"

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcript_path": self.transcript_path,
            "transcript_sha256": self.transcript_sha256,
            "transcript_status": self.transcript_status,
            "word_count": self.word_count,
            "quality": self.quality.to_dict(),
            "timing": self.timing.to_dict(),
            "evidence": {"plain_quote": self.plain_quote, "timed_quote": self.timed_quote},
        }


RECOVERY_PENDING = "bundle_recovery_pending"
"""The code of a bundle torn by a kill whose journal awaits recovery (transcript state
``recovery_pending``): its digests disagree because the write stopped between renames,
not because anything is stale or forged; ``rvault-transcript recover`` settles it."""


def recovery_pending(transcript_path: Path) -> str | None:
    """Why the bundle of ``transcript_path`` cannot be judged now (None: it can).

    A kill between the renames of ``fetch`` / ``vtt-cleanup`` leaves the
    bundle's journal beside the files (``rvault_contracts.writer``): some names
    already hold the new bytes, others the old, so a receipt would read as a
    hash mismatch. The message names the command that settles it.
    """
    journal = pending_bundle(transcript_path)
    if journal is None:
        return None
    return (
        f"an interrupted write of this transcript's bundle awaits recovery ({journal.name}); "
        f"`rvault-transcript recover {transcript_path}` (or the next fetch / vtt-cleanup of it) "
        "settles it"
    )


def _read(path: Path) -> bytes | None:
    """Raw bytes without following a symlink; None when missing."""
    snapshot = read_snapshot(path)
    return snapshot.data


def _is_archival_timing(document: Any) -> bool:
    if isinstance(document, list):
        return True  # a "minimal" sidecar: a bare array of segments
    if isinstance(document, dict):
        version = document.get("schema_version")
        if version == 1 and not isinstance(version, bool):
            return True
        if "schema_version" not in document and "segments" in document:
            return True
    return False


def _duration_drift(recorded: float, owner: float | None) -> bool:
    """Fail closed: a NaN owner duration compares false with everything, so it drifts."""
    return owner is not None and not durations_match(recorded, owner)


def _check_vtt_artifact(transcript_path: Path, provenance: Mapping[str, Any]) -> None:
    relative = provenance["artifact_path"]
    if not is_safe_relative_path(relative):
        raise ReceiptError("unsafe_artifact_path", "artifact_path escapes the transcript directory")
    current = transcript_path.parent
    try:
        for part in str(relative).split("/"):
            current = current / part
            st = os.lstat(current)
            if stat.S_ISLNK(st.st_mode):
                raise ReceiptError("artifact_symlink", f"{relative} passes through a symlink")
        if not stat.S_ISREG(st.st_mode):
            raise ReceiptError("artifact_not_regular_file", f"{relative} is not a regular file")
        data = _read(current)
    except (FileNotFoundError, NotADirectoryError):
        # a component gone, or a directory on the way replaced by a file
        raise ReceiptError("artifact_missing", f"{relative} does not exist") from None
    except (OSError, WriterError) as exc:
        raise ReceiptError("artifact_unreadable", f"{relative} cannot be read: {exc}") from None
    if data is None or sha256_bytes(data) != provenance["artifact_sha256"]:
        raise ReceiptError("artifact_hash_mismatch", f"{relative} changed since the receipt")


def _check_video_owner(provenance: dict[str, Any], owner: OwnerContext) -> None:
    if owner.video_id is None:
        raise ReceiptError("owner_context_missing", "the owning YouTube id was not supplied")
    if provenance["video_id"] != owner.video_id:
        raise ReceiptError(
            "owner_mismatch",
            "the receipt belongs to another YouTube video",
            "$.provenance.video_id",
        )


def _check_media_owner(provenance: dict[str, Any], owner: OwnerContext) -> None:
    if owner.media_sha256 is None:
        raise ReceiptError("owner_context_missing", "the owning media digest was not supplied")
    if provenance["media_sha256"] != owner.media_sha256:
        raise ReceiptError(
            "media_mismatch",
            "the receipt belongs to other media bytes",
            "$.provenance.media_sha256",
        )


def check_timing_owner(receipt: TimingReceipt, transcript_path: Path, owner: OwnerContext) -> None:
    """Bind a structurally valid timing receipt to its owner; raise ReceiptError otherwise."""
    provenance = receipt.provenance
    kind = provenance["kind"]
    if kind in ("youtube_captions", "youtube_whisper"):
        _check_video_owner(provenance, owner)
    elif kind == "local_media_whisper":
        _check_media_owner(provenance, owner)
    else:
        _check_vtt_artifact(transcript_path, provenance)
    if "duration_seconds" in provenance and _duration_drift(
        float(provenance["duration_seconds"]), owner.duration_seconds
    ):
        raise ReceiptError(
            "duration_drift", "the owner duration no longer matches the receipt", "$.provenance"
        )


def check_quality_owner(receipt: QualityReceipt, owner: OwnerContext) -> None:
    provenance = receipt.provenance
    kind = provenance["kind"]
    if kind == "youtube_duration":
        _check_video_owner(provenance, owner)
    elif kind == "local_media_duration":
        _check_media_owner(provenance, owner)
    recorded = receipt.duration_seconds
    if recorded is not None and _duration_drift(recorded, owner.duration_seconds):
        raise ReceiptError(
            "transcript_quality_context_drift",
            "the owner duration no longer matches the stored policy",
            "$.policy",
        )


def read_timing(
    transcript_path: str | os.PathLike[str],
    *,
    transcript_bytes: bytes | None = None,
    owner: OwnerContext | None = None,
) -> TimingReading:
    """Read ``{id}.segments.json`` beside a transcript and decide whether it is a timing source."""
    path = Path(transcript_path)
    owner = owner or OwnerContext()
    pending = recovery_pending(path)
    if pending is not None:
        return TimingReading("invalid", RECOVERY_PENDING, pending)
    try:
        data = _read(timing_path_for(path))
        if transcript_bytes is None:
            transcript_bytes = _read(path)
    except WriterError as error:
        return TimingReading("invalid", error.code, str(error))
    if data is None:
        return TimingReading("missing", "timing_missing", "no timing sidecar")
    if transcript_bytes is None:
        return TimingReading("invalid", "transcript_missing", "the transcript does not exist")
    try:
        document = loads_strict_any(data)
    except StrictJSONError as error:
        return TimingReading("invalid", error.code, error.message)
    if _is_archival_timing(document):
        return TimingReading(
            "archival",
            "timing_archival",
            "timing v1/minimal sidecars are archival and never a timing source",
            archival=document,
        )
    try:
        receipt = validate_timing(document, transcript_bytes)
        check_timing_owner(receipt, path, owner)
    except ReceiptError as error:
        return TimingReading("invalid", error.code, error.message)
    return TimingReading("valid", "timing_current", "hash-current, owner-bound timing", receipt)


def read_quality(
    transcript_path: str | os.PathLike[str],
    *,
    transcript_bytes: bytes | None = None,
    owner: OwnerContext | None = None,
) -> QualityReading:
    """Read ``{id}.quality.json`` and re-run its policy on the current transcript bytes."""
    path = Path(transcript_path)
    owner = owner or OwnerContext()
    pending = recovery_pending(path)
    if pending is not None:
        return QualityReading("invalid", RECOVERY_PENDING, pending)
    try:
        data = _read(quality_path_for(path))
        if transcript_bytes is None:
            transcript_bytes = _read(path)
    except WriterError as error:
        return QualityReading("invalid", error.code, str(error))
    if data is None:
        return QualityReading(
            "missing", "quality_missing", "no quality receipt: unverified legacy input"
        )
    if transcript_bytes is None:
        return QualityReading("invalid", "transcript_missing", "the transcript does not exist")
    try:
        receipt = validate_quality(loads_strict_any(data), transcript_bytes)
        check_quality_owner(receipt, owner)
    except StrictJSONError as error:
        return QualityReading("invalid", error.code, error.message)
    except ReceiptError as error:
        return QualityReading("invalid", error.code, error.message)
    return QualityReading("valid", "quality_current", "hash-current quality receipt", receipt)


def read_evidence(
    transcript_path: str | os.PathLike[str], *, owner: OwnerContext | None = None
) -> EvidenceReport:
    """Which transcript evidence (plain quote, timed quote) the current bytes support."""
    path = Path(transcript_path)
    pending = recovery_pending(path)
    if pending is not None:
        quality = QualityReading("invalid", RECOVERY_PENDING, pending)
        timing = TimingReading("invalid", RECOVERY_PENDING, pending)
        return EvidenceReport(str(path), None, "recovery_pending", quality, timing)
    try:
        data = _read(path)
    except WriterError as error:
        missing = QualityReading("invalid", error.code, str(error))
        return EvidenceReport(
            str(path), None, "invalid", missing, TimingReading("invalid", error.code, str(error))
        )
    if data is None:
        quality = QualityReading("invalid", "transcript_missing", "the transcript does not exist")
        timing = TimingReading("invalid", "transcript_missing", "the transcript does not exist")
        return EvidenceReport(str(path), None, "missing", quality, timing)
    quality = read_quality(path, transcript_bytes=data, owner=owner)
    timing = read_timing(path, transcript_bytes=data, owner=owner)
    word_count = quality.receipt.word_count if quality.receipt is not None else None
    return EvidenceReport(str(path), sha256_bytes(data), "valid", quality, timing, word_count)


def validate_fetch_result(document: Any) -> list[Issue]:
    """Every problem of a fetch / vtt-cleanup result document (empty when valid).

    Schema findings (``schema_violation``) and the checks a schema cannot
    say, each with its stable code (:mod:`rvault_transcript.fetch_result`).
    Without a vault root, so the transcript's location is not judged; a
    consumer that acts on the document calls :func:`read_fetch_result`.
    """
    return fetch_result_issues(document)
