"""What evidence a talk has right now, decided by the owners' public readers.

The overview must say where evidence is thin, and only the owners can say
whether an artifact is real: the tracking-db capability resolver decides
which local transcript, deck and PDF paths are readable below the roots
(no symlink, regular file, right format), the transcript owner re-hashes
the transcript and its quality/timing receipts, and the video owner
validates the manifest and decides whether its slide region is trusted.
This module only asks them and records the answers; it never re-decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.strict_json import StrictJSONError, loads_strict
from rvault_tracking_db.api import SourceRoots, resolve, talk_video_id, transcript_owner
from rvault_transcript.api import OwnerContext, read_evidence
from rvault_video_extraction.api import manifest_path, read_manifest

from rvault_analysis_writer.site.ledger import ledger_issues
from rvault_analysis_writer.site.transcript_times import line_starts, token_starts
from rvault_analysis_writer.site.vault_files import VaultFiles

VIDEO_EXTRACTED = "video_extracted"


@dataclass(frozen=True)
class TranscriptState:
    """``state``: missing, unverified (no quality receipt), invalid or valid."""

    path: str | None
    state: str
    quality_code: str
    timing_code: str
    word_count: int | None
    plain_quote: bool
    timed_quote: bool
    lines: tuple[str, ...] = ()
    """The transcript's lines (LF-separated, line 1 first), read only for an analysed talk."""
    line_starts: tuple[float | None, ...] = ()
    """Per line, when it starts by the current timing receipt (empty without one)."""
    timed_until: float | None = None
    """The end of the receipt's last segment: how long the timed talk is at least."""
    word_starts: tuple[float, ...] = ()
    """Per word of the transcript, when it was said (a quote is placed by its first word)."""


@dataclass(frozen=True)
class ManifestState:
    """``state``: missing, current, legacy, future or invalid (the video owner's status)."""

    path: str | None
    state: str
    trusted: bool
    codes: tuple[str, ...]
    slide_region_path: str | None
    slide_region_sha256: str | None
    frame_times: tuple[float, ...] = ()
    """``retained_frames[].timestamp_seconds`` of a usable manifest: page n appeared at [n-1]."""
    video_path: str | None = None
    """The manifest's ``source_video_path``: the recording the times refer to."""
    video_seconds: float | None = None
    """The recording's container duration by the v4 ``source_receipt`` (when recorded)."""


@dataclass(frozen=True)
class SlidesState:
    """The promoted PDF (``slides_local_path``) and whether its pages may be shown as slides."""

    path: str | None
    readable: bool
    trusted: bool
    reason: str
    sha256: str | None = None
    """Digest of the bytes judged; thumbnails are rendered only from these bytes."""


@dataclass(frozen=True)
class Evidence:
    transcript: TranscriptState
    deck: bool
    deck_path: str | None
    deck_state: str
    """``missing`` (no readable deck), else the pptx-evidence receipt stored in
    ``pptx_catalog``: ``extracted``, ``not_extracted``, ``extraction_failed``,
    ``legacy_receipt`` or ``not_catalogued``."""
    slides: SlidesState
    manifest: ManifestState
    findings: tuple[dict[str, str], ...]
    ledger_issues: tuple[dict[str, str], ...] = ()
    """Contract problems of the persisted evidence ledger (:mod:`.ledger`)."""

    @property
    def sources(self) -> dict[str, bool]:
        """The coverage lanes the trends chart counts (one flag per source)."""
        return {
            "transcript": self.transcript.state == "valid",
            "timed transcript": self.transcript.timed_quote,
            "deck": self.deck,
            "trusted slides": self.slides.trusted,
            "video manifest": self.manifest.state != "missing",
        }


def owner_context(talk: Mapping[str, Any]) -> OwnerContext:
    """What the database knows about the talk's media, independent of any receipt
    (the attached local recording's digest included), built by its owner."""
    return OwnerContext(**transcript_owner(talk).kwargs())


def _transcript(
    talk: Mapping[str, Any],
    capabilities: list[dict[str, Any]],
    vault_root: Path,
    want_text: bool,
) -> TranscriptState:
    paths = [c["path"] for c in capabilities if c["capability"] == "local_transcript"]
    declared = talk.get("transcript_path")
    path = declared if isinstance(declared, str) and declared in paths else None
    path = path or (paths[0] if paths else None)
    if path is None:
        return TranscriptState(
            None, "missing", "transcript_missing", "timing_missing", None, False, False
        )
    report = read_evidence(vault_root / path, owner=owner_context(talk))
    lines: tuple[str, ...] = ()
    starts: tuple[float | None, ...] = ()
    until = None
    words: tuple[float, ...] = ()
    data = VaultFiles(vault_root).data(path) if want_text and report.plain_quote else None
    if data is not None and sha256_bytes(data) == report.transcript_sha256:
        text = data.decode("utf-8", "replace")
        lines = tuple(text.split("\n"))
        if report.timed_quote:
            starts = line_starts(text, report.timing.segments)
            until = report.timing.segments[-1].end_seconds if report.timing.segments else None
            words = token_starts(report.timing.segments)
    return TranscriptState(
        path,
        report.state,
        report.quality.code,
        report.timing.code,
        report.word_count,
        report.plain_quote,
        report.timed_quote,
        lines,
        starts,
        until,
        words,
    )


def _manifest(talk: Mapping[str, Any], vault_root: Path) -> ManifestState:
    video = talk_video_id(talk)
    if video is None:
        return ManifestState(None, "missing", False, (), None, None)
    relative = manifest_path(video)
    if not (vault_root / relative).exists():
        return ManifestState(None, "missing", False, (), None, None)
    report = read_manifest(vault_root / relative, vault_root=vault_root, expected_video_id=video)
    region = report.trusted_slide_region_path
    times, video_path, seconds = (
        _frames(vault_root, relative) if report.usable else ((), None, None)
    )
    return ManifestState(
        relative,
        report.status,
        report.trusted,
        tuple(report.codes),
        region,
        report.pdf_sha256.get(region) if region is not None else None,
        times,
        video_path,
        seconds,
    )


def _frames(vault_root: Path, relative: str) -> tuple[tuple[float, ...], str | None, float | None]:
    """Slide-change times, the recording and its duration of a manifest its owner called usable."""
    try:
        document = loads_strict(VaultFiles(vault_root).data(relative) or b"")
    except StrictJSONError:
        return (), None, None
    frames = document.get("retained_frames") if isinstance(document, dict) else None
    times = tuple(
        float(frame["timestamp_seconds"])
        for frame in frames or ()
        if isinstance(frame, dict) and isinstance(frame.get("timestamp_seconds"), int | float)
    )
    video = document.get("source_video_path") if isinstance(document, dict) else None
    receipt = document.get("source_receipt") if isinstance(document, dict) else None
    seconds = receipt.get("container_duration_seconds") if isinstance(receipt, dict) else None
    return (
        times,
        video if isinstance(video, str) and not video.startswith("/") else None,
        float(seconds) if isinstance(seconds, int | float) and seconds > 0 else None,
    )


def _slides(
    talk: Mapping[str, Any],
    capabilities: list[dict[str, Any]],
    manifest: ManifestState,
    files: VaultFiles,
) -> SlidesState:
    declared = talk.get("slides_local_path")
    if not isinstance(declared, str) or not declared:
        return SlidesState(None, False, False, "no promoted PDF (slides_local_path unset)")
    readable = any(
        c["capability"] == "local_pdf" and c.get("path") == declared and c.get("root") == "vault"
        for c in capabilities
    )
    digest = files.sha256(declared) if readable else None
    if digest is None:
        return SlidesState(declared, False, False, "the promoted PDF is missing or unreadable")
    if talk.get("slide_source") != VIDEO_EXTRACTED:
        return SlidesState(declared, True, True, "authored PDF", digest)
    if not manifest.trusted:
        return SlidesState(
            declared, True, False, "video-extracted, but the manifest is not trusted", digest
        )
    if digest != manifest.slide_region_sha256:
        return SlidesState(
            declared,
            True,
            False,
            "video-extracted, but not the manifest's trusted slide region",
            digest,
        )
    return SlidesState(declared, True, True, "trusted video-extracted slide region", digest)


def deck_state(readable: bool, record: Mapping[str, Any] | None) -> str:
    """What the deck's ``pptx_catalog`` record (written by ``rvault-db record-deck``) says."""
    if not readable:
        return "missing"
    if record is None:
        return "not_catalogued"
    receipt = record.get("visual_evidence")
    if record.get("schema_version") != 2:
        return "legacy_receipt"
    if receipt is None:
        return "not_extracted"
    if isinstance(receipt, Mapping) and receipt.get("outcome") == "succeeded":
        return "extracted"
    return "extraction_failed"


def read_talk_evidence(
    talk: Mapping[str, Any],
    roots: SourceRoots,
    deck_record: Mapping[str, Any] | None = None,
    want_text: bool = False,
) -> Evidence:
    """Ask every owner what this talk's evidence is worth (a pure function of the bytes).

    ``deck_record`` is the ``pptx_catalog`` entry for the talk's ``pptx_path``;
    ``want_text`` also keeps the transcript lines and their start times (an
    analysed talk: its page places moments in time and the search indexes it).
    """
    resolution = resolve(talk, roots)
    capabilities = resolution.capabilities
    transcript = _transcript(talk, capabilities, roots.vault_root, want_text)
    decks = [c["path"] for c in capabilities if c["capability"] == "local_pptx"]
    manifest = _manifest(talk, roots.vault_root)
    return Evidence(
        transcript=transcript,
        deck=bool(decks),
        deck_path=decks[0] if decks else None,
        deck_state=deck_state(bool(decks), deck_record),
        slides=_slides(talk, capabilities, manifest, VaultFiles(roots.vault_root)),
        manifest=manifest,
        findings=tuple(f.to_dict() for f in resolution.findings),
        ledger_issues=ledger_issues(talk),
    )


def evidence_job(
    job: tuple[Mapping[str, Any], SourceRoots, Mapping[str, Any] | None, bool],
) -> Evidence:
    """:func:`read_talk_evidence` for :func:`.parallel.ordered_map` (one picklable argument)."""
    return read_talk_evidence(*job)
