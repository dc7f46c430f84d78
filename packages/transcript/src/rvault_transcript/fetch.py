"""Acquire, validate and atomically write one transcript bundle.

:class:`FetchRequest` says what the caller asked for, :func:`fetch` does it
and returns the ``transcript-fetch-result`` v1 document, or raises
:class:`~rvault_contracts.cli.Refusal` (stable code, nothing changed). The
CLI (:mod:`rvault_transcript.commands.fetch`) only adapts arguments, so every
rule here is tested without it.

Three paths: an existing transcript without ``force`` is validated and gets
(or reuses) its exact quality receipt, and only known ``youtube_auto``
provenance may gain caption timing when the captions equal its text modulo
Unicode whitespace; a YouTube id tries the caption track, then local Whisper
on the downloaded audio; ``audio`` transcribes the exact local media bytes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from rvault_contracts.cli import Refusal
from rvault_contracts.cli import progress as stderr_progress
from rvault_contracts.writer import BundleReport, FaultHook, Snapshot, read_snapshot

from rvault_transcript import policy
from rvault_transcript.api import OwnerContext, QualityReading, read_quality, read_timing
from rvault_transcript.bundle import BundlePaths, write_bundle
from rvault_transcript.language import LanguageMismatch, speech_record
from rvault_transcript.receipts import (
    YOUTUBE_ID,
    ReceiptError,
    Segment,
    build_quality_receipt,
    build_timing_receipt,
    receipt_bytes,
)
from rvault_transcript.segments import transcript_and_segments, transcript_bytes
from rvault_transcript.text import TextRefusal, decode_utf8, equal_modulo_whitespace, judge_text
from rvault_transcript.text_language import caption_track_record, existing_text_record
from rvault_transcript.vault import check_output_location

EXISTING_SOURCES = ("youtube_auto", "whisper", "manual", "none", "unknown")
TRANSCRIPT_SOURCE = {"captions": "youtube_auto", "whisper": "whisper", "existing": None}


@dataclass(frozen=True)
class FetchRequest:
    """One ``fetch``: a YouTube id, or a talk label with ``audio``."""

    id: str
    out: Path
    existing_source: str
    audio: Path | None = None
    duration_seconds: float | None = None
    min_words: int | None = None
    force: bool = False
    model: str | None = None
    languages: tuple[str, ...] | None = None
    vault_root: Path | None = None
    fault: FaultHook | None = None
    """The writer's fault hook for tests (a failure injected at a named bundle step)."""

    @property
    def youtube(self) -> bool:
        return self.audio is None


@dataclass
class Outcome:
    method: str
    word_count: int
    min_words: int
    duration_seconds: float | None
    source: dict[str, Any]
    timing_status: dict[str, Any]
    quality_status: dict[str, Any]
    timed: bool
    write: BundleReport | None
    language: str | None = None
    notes: list[str] = field(default_factory=list)

    def document(self, paths: BundlePaths) -> dict[str, Any]:
        return {
            "ok": True,
            "method": self.method,
            "language": self.language,
            "transcript_path": str(paths.transcript),
            "timed_path": str(paths.timing) if self.timed else None,
            "quality_path": str(paths.quality),
            "word_count": self.word_count,
            "source": self.source,
            "transcript_source": TRANSCRIPT_SOURCE[self.method],
            "duration_seconds": self.duration_seconds,
            "min_words": self.min_words,
            "timing_status": self.timing_status,
            "quality_status": self.quality_status,
            "write": self.write.to_dict() if self.write is not None else None,
        }


@dataclass(frozen=True)
class QualityTrust:
    """The quality provenance a probe allows, and why."""

    provenance: dict[str, Any]
    note: str

    @property
    def duration(self) -> float | None:
        value = self.provenance.get("duration_seconds")
        return None if value is None else float(value)


def _status(available: bool, code: str, message: str) -> dict[str, Any]:
    return {"available": available, "code": code, "message": message}


def check_request(request: FetchRequest) -> Path | None:
    """Argument rules, in a fixed order: the output, the options, the id; the vault root used."""
    out = request.out
    if out.suffix != ".txt":
        raise Refusal("output_not_txt", "--out must name a .txt transcript", str(out))
    if not out.parent.is_dir():
        raise Refusal(
            "output_directory_missing", "the transcript directory does not exist", str(out.parent)
        )
    if request.min_words is not None and request.min_words < 1:
        raise Refusal("invalid_min_words", "--min-words must be a positive integer")
    if request.duration_seconds is not None and not request.duration_seconds > 0:
        raise Refusal("invalid_duration", "--duration-seconds must be positive")
    if request.existing_source not in EXISTING_SOURCES:
        raise Refusal(
            "invalid_existing_source",
            f"--existing-source must be one of {', '.join(EXISTING_SOURCES)}",
        )
    if not request.youtube and not request.id.strip():
        # transcript-fetch-result v1 requires a non-empty source label.
        raise Refusal(
            "invalid_label", "LABEL must be a non-empty talk label with --audio", request.id
        )
    if request.youtube:
        if not YOUTUBE_ID.fullmatch(request.id):
            raise Refusal(
                "invalid_video_id",
                "ID must be an 11-character YouTube id (or pass --audio)",
                request.id,
            )
        if out.name != f"{request.id}.txt":
            # Readers find a YouTube talk's transcript at transcripts/{ID}.txt only.
            raise Refusal(
                "output_name_mismatch",
                f"--out must name transcripts/{request.id}.txt for YouTube id {request.id}",
                str(out),
                hint=f"pass --out {out.with_name(request.id + '.txt')}",
            )
    return check_output_location(out, request.vault_root)


def fetch(
    request: FetchRequest,
    *,
    progress: Callable[[str], None] = stderr_progress,
) -> dict[str, Any]:
    """Run one request; the ``transcript-fetch-result`` v1 document, or a Refusal."""
    check_request(request)
    paths = BundlePaths.for_transcript(request.out)
    if request.audio is not None:
        _refuse_media_in_bundle(request.audio, paths)
    run = _Run(request, paths, read_snapshot(request.out), progress, request.fault)
    if run.initial.exists and not request.force:
        outcome = run.existing()
    elif request.audio is not None:
        outcome = run.fresh_local()
    else:
        outcome = run.fresh_youtube()
    for note in outcome.notes:
        progress(f"fetch: {note}")
    return outcome.document(paths)


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class LocalSource:
    sha256: str
    duration: float
    source: dict[str, Any]


def _refuse_media_in_bundle(media: Path, paths: BundlePaths) -> None:
    """The bundle must never replace the media it is transcribed from (``--force``)."""
    try:
        media_st = media.stat()
    except OSError:
        return  # _open_local refuses it with the precise code
    for path in paths.all():
        try:
            st = path.lstat()
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (media_st.st_dev, media_st.st_ino):
            raise Refusal(
                "output_collides_with_input",
                "--out (or its receipt sidecars) names the --audio media file",
                str(path),
            )


def open_media(media: Path) -> BinaryIO:
    if media.is_symlink() or not media.is_file():
        raise Refusal(
            "media_not_regular_file", "--audio must be a regular, non-symlink file", str(media)
        )
    return open(media, "rb")


def probe_media(media: Path, handle: BinaryIO, label: str) -> LocalSource:
    from rvault_transcript.probe import ProbeError, probe_local

    try:
        probed = probe_local(handle)
    except ProbeError as error:
        raise Refusal(error.code, error.message, str(media)) from None
    source = {
        "kind": "local_media",
        "label": label,
        "media_path": str(media),
        "media_sha256": probed.sha256,
    }
    return LocalSource(probed.sha256, probed.duration_seconds, source)


def quality_trust(
    claimed: float | None, probed: float | None, bind: dict[str, str], kind: str
) -> QualityTrust:
    """A claimed duration lowers the floor only when it matches a probe of the exact source."""
    if claimed is None:
        return QualityTrust({"kind": "fixed_default"}, "no expected duration: fixed default floor")
    if probed is None:
        return QualityTrust(
            {"kind": "fixed_default"}, "expected duration ignored: the source could not be probed"
        )
    if not policy.durations_match(claimed, probed):
        return QualityTrust(
            {"kind": "fixed_default"},
            f"expected duration {claimed}s ignored: the probe says {probed}s",
        )
    return QualityTrust(
        {"kind": kind, **bind, "duration_seconds": probed}, "expected duration matches the probe"
    )


def judge(data: bytes, min_words: int, code: str, path: Path, hint: str) -> int:
    """The word count of acceptable text; refusals name ``path`` and carry a hint."""
    try:
        return judge_text(decode_utf8(data), min_words).word_count
    except TextRefusal as refusal:
        if refusal.code == "invalid_utf8":
            raise Refusal("invalid_utf8", refusal.message, str(path)) from None
        context: dict[str, Any] = {"reason": refusal.code}
        if refusal.code == "too_few_words":
            context["hint"] = hint
        raise Refusal(code, refusal.message, str(path), **context) from None


def _build_timing(
    data: bytes, source: str, provenance: dict[str, Any] | None, segments: list[Segment] | None
) -> tuple[bytes | None, dict[str, Any]]:
    """Prevalidate optional timing; unusable timing never blocks valid text."""
    if segments is None:
        return None, _status(False, "timing_not_produced", "the source produced no usable timing")
    if provenance is None:
        return None, _status(
            False, "duration_untrusted", "no probed source duration binds the timing"
        )
    try:
        document = build_timing_receipt(data, source, provenance, segments)
    except ReceiptError as error:
        return None, _status(False, error.code, error.message)
    return receipt_bytes(document), _status(True, "timing_current", "hash-bound timing receipt v2")


def _youtube_timing(kind: str, video_id: str, probed: float | None) -> dict[str, Any] | None:
    """Timing provenance of a YouTube source: only a probed duration can bind it."""
    if probed is None:
        return None
    return {"kind": kind, "video_id": video_id, "duration_seconds": probed}


def _probe_youtube(video_id: str) -> tuple[float | None, str]:
    from rvault_transcript.probe import ProbeError, probe_youtube

    try:
        return probe_youtube(video_id).duration_seconds, "yt-dlp metadata probed"
    except ProbeError as error:
        return None, f"yt-dlp probe failed ({error.code}): {error.message}"


def _short_talk_hint(request: FetchRequest, probed: float | None, trust: QualityTrust) -> str:
    if trust.duration is not None:
        floor = policy.derived_floor(trust.duration)
        return (
            f"the floor is already the short-talk one: {policy.WORDS_PER_MINUTE} words per minute"
            f" of the probed {trust.duration} s, {floor} words; the text is shorter than that"
        )
    source = "the yt-dlp probe of the video" if request.youtube else f"the probe of {request.audio}"
    measured = f" (the probe says {probed:.3f} s)" if probed is not None else ""
    return (
        f"without a trusted duration the floor is {policy.DEFAULT_MIN_WORDS} words; a short"
        f" talk qualifies with --duration-seconds N, used only when it matches {source}"
        f"{measured}, which lowers the floor to {policy.WORDS_PER_MINUTE} words per minute"
    )


# --------------------------------------------------------------------------- the run


@dataclass
class _Run:
    request: FetchRequest
    paths: BundlePaths
    initial: Snapshot
    progress: Callable[[str], None]
    fault: FaultHook | None
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ existing

    def existing(self) -> Outcome:
        request, paths = self.request, self.paths
        assert self.initial.data is not None
        data = self.initial.data
        enrich = request.youtube and request.existing_source == "youtube_auto"
        source, probed, trust, owner = self._existing_owner(data, enrich)
        self.notes.append(trust.note)
        stored = read_quality(paths.transcript, transcript_bytes=data, owner=owner)
        changes: dict[Path, bytes | None] = {}
        if self._reusable(stored, trust, probed):
            assert stored.receipt is not None
            min_words = stored.receipt.min_words
            duration = stored.receipt.duration_seconds
            quality_status = _status(
                True, "quality_reused", "the existing quality receipt is current"
            )
        else:
            min_words = policy.effective_min_words(request.min_words, trust.duration)
            duration = trust.duration
            quality_status = _status(
                True, "quality_current", "quality receipt v2 written for the existing text"
            )
        word_count = judge(
            data,
            min_words,
            "existing_transcript_invalid",
            paths.transcript,
            _short_talk_hint(request, probed, trust)
            + "; the existing text is kept (--force replaces it only when that is intended)",
        )
        if quality_status["code"] == "quality_current":
            language = existing_text_record(data.decode("utf-8"))
            changes[paths.quality] = receipt_bytes(
                build_quality_receipt(data, min_words, trust.provenance, language)
            )
        timing_status = _status(
            False,
            "timing_not_enriched",
            f"existing source {request.existing_source} is not enriched",
        )
        if enrich:
            timing_bytes, timing_status = self._caption_enrichment(data, probed)
            if timing_bytes is not None:
                changes[paths.timing] = timing_bytes
        report = (
            write_bundle(paths, changes, transcript_read_as=self.initial, fault=self.fault)
            if changes
            else None
        )
        timed = paths.timing in changes
        if not timed:
            timed = read_timing(paths.transcript, transcript_bytes=data, owner=owner).usable
            if timed:
                timing_status = _status(
                    True, "timing_current", "an existing timing receipt is current"
                )
        return Outcome(
            method="existing",
            word_count=word_count,
            min_words=min_words,
            duration_seconds=duration,
            source=source,
            timing_status=timing_status,
            quality_status=quality_status,
            timed=timed,
            write=report,
            notes=self.notes,
        )

    def _existing_owner(
        self, data: bytes, enrich: bool
    ) -> tuple[dict[str, Any], float | None, QualityTrust, OwnerContext]:
        """The existing text's source, probed duration, duration trust and owner context.

        A YouTube talk is probed only when the request, caption enrichment or
        a stored duration-bound receipt needs its duration; a local recording
        is always probed (its digest is the owner).
        """
        request, paths = self.request, self.paths
        if request.youtube:
            source: dict[str, Any] = {"kind": "youtube", "video_id": request.id}
            stored = read_quality(
                paths.transcript, transcript_bytes=data, owner=OwnerContext(video_id=request.id)
            )
            # A stored duration-bound receipt can only be reused after a new probe.
            bound = stored.receipt is not None and stored.receipt.duration_seconds is not None
            probed: float | None = None
            if request.duration_seconds is not None or enrich or bound:
                probed, note = _probe_youtube(request.id)
                self.notes.append(note)
            trust = quality_trust(
                request.duration_seconds, probed, {"video_id": request.id}, "youtube_duration"
            )
            owner = OwnerContext(video_id=request.id, duration_seconds=probed)
        else:
            assert request.audio is not None
            with open_media(request.audio) as handle:
                local = probe_media(request.audio, handle, request.id)
            source = local.source
            probed = local.duration
            trust = quality_trust(
                request.duration_seconds,
                probed,
                {"media_sha256": local.sha256},
                "local_media_duration",
            )
            owner = OwnerContext(media_sha256=local.sha256, duration_seconds=probed)
        return source, probed, trust, owner

    def _reusable(self, stored: QualityReading, trust: QualityTrust, probed: float | None) -> bool:
        """A current, owner-bound receipt is kept unless the request asks for more.

        With a trusted duration it must record that duration; without one an
        owner-current receipt is kept when its own duration (if any) still
        matches a probe made now. A stricter ``min_words`` than the
        receipt's forces a new receipt.
        """
        receipt = stored.receipt
        if not stored.usable or receipt is None:
            return False
        if receipt.duration_seconds is not None and probed is None:
            return False  # the recorded duration cannot be re-checked: fail closed
        if self.request.min_words is not None and receipt.min_words < self.request.min_words:
            return False
        if trust.duration is not None:
            floor = policy.effective_min_words(self.request.min_words, trust.duration)
            return receipt.duration_seconds == trust.duration and receipt.min_words >= floor
        return True

    def _caption_enrichment(
        self, data: bytes, probed: float | None
    ) -> tuple[bytes | None, dict[str, Any]]:
        from rvault_transcript.captions import CaptionError, fetch_captions

        request = self.request
        try:
            track = fetch_captions(request.id, _languages(request))
        except CaptionError as error:
            return None, _status(False, error.code, error.message)
        caption_text = transcript_bytes(track.segments).decode("utf-8")
        if not equal_modulo_whitespace(caption_text, decode_utf8(data)):
            self.notes.append("captions differ from the existing text beyond whitespace: no timing")
            return None, _status(
                False, "caption_text_mismatch", "captions differ from the existing text"
            )
        provenance = _youtube_timing("youtube_captions", request.id, probed)
        return _build_timing(data, "captions", provenance, track.segments)

    # ------------------------------------------------------------ fresh

    def _fresh(
        self,
        data: bytes,
        *,
        method: str,
        language: dict[str, Any],
        timing_provenance: dict[str, Any] | None,
        segments: list[Segment] | None,
        trust: QualityTrust,
        source: dict[str, Any],
        probed: float | None,
    ) -> Outcome:
        """Judge freshly acquired text, write its bundle, and describe the result."""
        timing_bytes, timing_status = _build_timing(data, method, timing_provenance, segments)
        min_words = policy.effective_min_words(self.request.min_words, trust.duration)
        word_count = judge(
            data,
            min_words,
            "transcript_quality_failed",
            self.paths.transcript,
            _short_talk_hint(self.request, probed, trust),
        )
        quality = build_quality_receipt(data, min_words, trust.provenance, language)
        changes: dict[Path, bytes | None] = {
            self.paths.transcript: data,
            self.paths.quality: receipt_bytes(quality),
            self.paths.timing: timing_bytes,
        }
        report = write_bundle(
            self.paths, changes, transcript_read_as=self.initial, fault=self.fault
        )
        return Outcome(
            method=method,
            language=language["language"],
            word_count=word_count,
            min_words=min_words,
            duration_seconds=trust.duration,
            source=source,
            timing_status=timing_status,
            quality_status=_status(True, "quality_current", "quality receipt v2 written"),
            timed=timing_bytes is not None,
            write=report,
            notes=self.notes,
        )

    def fresh_local(self) -> Outcome:
        from rvault_transcript.probe import hash_open_file

        request = self.request
        assert request.audio is not None
        with open_media(request.audio) as handle:
            local = probe_media(request.audio, handle, request.id)
            self.progress(f"fetch: transcribing {request.audio} ({local.duration:.1f} s)")
            result = _transcribe(handle, request.model, self.progress)
            if hash_open_file(handle)[0] != local.sha256:
                raise Refusal(
                    "media_changed",
                    "the media bytes changed while transcribing",
                    str(request.audio),
                )
        data, segments = transcript_and_segments(result.segments)
        trust = quality_trust(
            request.duration_seconds,
            local.duration,
            {"media_sha256": local.sha256},
            "local_media_duration",
        )
        self.notes.append(trust.note)
        return self._fresh(
            data,
            method="whisper",
            language=speech_record(result.detection),
            timing_provenance={
                "kind": "local_media_whisper",
                "media_sha256": local.sha256,
                "duration_seconds": local.duration,
            },
            segments=segments,
            trust=trust,
            source=local.source,
            probed=local.duration,
        )

    def fresh_youtube(self) -> Outcome:
        from rvault_transcript.captions import CaptionError, fetch_captions

        request = self.request
        video_id = request.id
        source = {"kind": "youtube", "video_id": video_id}
        probed, note = _probe_youtube(video_id)
        self.notes.append(note)
        trust = quality_trust(
            request.duration_seconds, probed, {"video_id": video_id}, "youtube_duration"
        )
        self.notes.append(trust.note)
        min_words = policy.effective_min_words(request.min_words, trust.duration)
        try:
            track = fetch_captions(video_id, _languages(request))
            data = transcript_bytes(track.segments)
            judge(data, min_words, "transcript_quality_failed", self.paths.transcript, "")
            language = caption_track_record(track.language, [s.text for s in track.segments])
        except CaptionError as error:
            problem = f"{error.code}: {error.message}"
        except Refusal as refusal:
            problem = f"caption text refused ({refusal.code}): {refusal.message}"
        except LanguageMismatch as mismatch:
            problem = f"caption text refused (language_mismatch): {mismatch.message}"
        else:
            return self._fresh(
                data,
                method="captions",
                language=language,
                timing_provenance=_youtube_timing("youtube_captions", video_id, probed),
                segments=track.segments,
                trust=trust,
                source=source,
                probed=probed,
            )
        self.progress(f"fetch: captions unavailable ({problem}); falling back to local Whisper")
        self.notes.append(f"captions unavailable: {problem}")
        result = self._download_and_transcribe(problem)
        data, segments = transcript_and_segments(result.segments)
        return self._fresh(
            data,
            method="whisper",
            language=speech_record(result.detection),
            timing_provenance=_youtube_timing("youtube_whisper", video_id, probed),
            segments=segments,
            trust=trust,
            source=source,
            probed=probed,
        )

    def _download_and_transcribe(self, caption_problem: str) -> Any:
        from rvault_transcript.probe import ProbeError, download_audio

        with tempfile.TemporaryDirectory(prefix="rvault-transcript-") as tmp:
            try:
                audio = download_audio(self.request.id, Path(tmp))
            except ProbeError as error:
                raise Refusal(
                    "transcript_unavailable",
                    f"no caption track ({caption_problem}) and no audio"
                    f" ({error.code}: {error.message})",
                    self.request.id,
                ) from None
            self.progress(f"fetch: transcribing downloaded audio {audio.name}")
            return _transcribe(str(audio), self.request.model, self.progress)


def _languages(request: FetchRequest) -> list[str] | None:
    return list(request.languages) if request.languages else None


def _transcribe(media: Any, model: str | None, progress: Callable[[str], None]) -> Any:
    from rvault_transcript.whisper import LanguageUnsupported, ModelUnavailable, transcribe

    try:
        return transcribe(media, model=model, progress=progress)
    except ModelUnavailable as error:
        raise Refusal(
            "model_unavailable",
            "the Whisper model (--model or RVAULT_WHISPER_MODEL) cannot be loaded: "
            + error.message,
            error.name,
        ) from None
    except LanguageUnsupported as error:
        raise Refusal(
            "language_unsupported",
            f"the speech is in {error.language} ({error.detection.summary()} of the speech) and"
            " the chosen model is English-only",
            error.name,
            language=error.language,
            detected=error.detection.to_dict(),
            hint="drop --model / RVAULT_WHISPER_MODEL to use the embedded multilingual model",
        ) from None
