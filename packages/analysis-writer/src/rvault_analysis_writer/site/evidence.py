"""What evidence a talk has right now: tracking-db's summary, in the site's shapes.

The overview must say where evidence is thin, and only the owners can say
whether an artifact is real. ``rvault_tracking_db.api.talk_evidence`` asks
them all (the capability resolver, the transcript owner's receipts, the
video owner's manifest trust, the pptx owner's verdict on the deck receipt,
the slide PDF's recorded identity) and is the same summary ``rvault-db
status`` renders, so the report and the status table cannot disagree. This
module only reshapes that answer and, for an analysed talk, reads the
transcript lines and the manifest's frame times the pages show; it never
re-decides.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.strict_json import StrictJSONError, loads_strict
from rvault_tracking_db.api import (
    OwnerReaders,
    SourceRoots,
    TalkEvidence,
    talk_evidence,
)
from rvault_transcript import api as transcript_api
from rvault_video_extraction import api as video_api

from rvault_analysis_writer.site.ledger import ledger_issues
from rvault_analysis_writer.site.transcript_times import line_starts, token_starts
from rvault_analysis_writer.site.vault_files import VaultFiles


@functools.cache
def _readers() -> OwnerReaders:
    """The owners' readers the site asks: transcript and video are dependencies of
    analysis-writer; the pptx owner's verdict is optional, as it is for status."""
    installed = OwnerReaders.installed()
    return OwnerReaders(transcript_api, video_api, installed.pptx)


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
    summary: TalkEvidence | None = None
    """tracking-db's evidence summary this view was built from (``rvault-db status``'s)."""

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


def _transcript(evidence: TalkEvidence, vault_root: Path, want_text: bool) -> TranscriptState:
    found = evidence.transcript
    report = found.report
    if found.path is None or report is None:
        return TranscriptState(
            None, "missing", "transcript_missing", "timing_missing", None, False, False
        )
    lines: tuple[str, ...] = ()
    starts: tuple[float | None, ...] = ()
    until = None
    words: tuple[float, ...] = ()
    data = VaultFiles(vault_root).data(found.path) if want_text and report.plain_quote else None
    if data is not None and sha256_bytes(data) == report.transcript_sha256:
        text = data.decode("utf-8", "replace")
        lines = tuple(text.split("\n"))
        if report.timed_quote:
            starts = line_starts(text, report.timing.segments)
            until = report.timing.segments[-1].end_seconds if report.timing.segments else None
            words = token_starts(report.timing.segments)
    return TranscriptState(
        found.path,
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


def _manifest(evidence: TalkEvidence, vault_root: Path) -> ManifestState:
    found = evidence.manifest
    if found.path is None:
        return ManifestState(None, "missing", False, (), None, None)
    times, video_path, seconds = (
        _frames(vault_root, found.path) if found.usable else ((), None, None)
    )
    return ManifestState(
        found.path,
        found.status,
        found.trusted,
        found.codes,
        found.slide_region_path,
        found.slide_region_sha256,
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


def _slides(evidence: TalkEvidence) -> SlidesState:
    found = evidence.slides
    if found is None:
        return SlidesState(None, False, False, "no promoted PDF (slides_local_path unset)")
    return SlidesState(found.path, found.readable, found.trusted, found.reason, found.sha256)


def deck_state(readable: bool, state: str) -> str:
    """``missing`` without a readable deck, else what its ``pptx_catalog`` receipt says."""
    return state if readable else "missing"


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
    summary = talk_evidence(talk, roots, deck_record, _readers())
    deck = summary.deck
    return Evidence(
        transcript=_transcript(summary, roots.vault_root, want_text),
        deck=deck.readable_path is not None,
        deck_path=deck.readable_path,
        deck_state=deck_state(deck.readable_path is not None, deck.state),
        slides=_slides(summary),
        manifest=_manifest(summary, roots.vault_root),
        findings=summary.findings,
        ledger_issues=ledger_issues(talk),
        summary=summary,
    )


def evidence_job(
    job: tuple[Mapping[str, Any], SourceRoots, Mapping[str, Any] | None, bool],
) -> Evidence:
    """:func:`read_talk_evidence` for :func:`.parallel.ordered_map` (one picklable argument)."""
    return read_talk_evidence(*job)
