"""``rvault-transcript fetch``: acquire, validate and atomically write a transcript.

Two modes: ``fetch YOUTUBE_ID`` (caption track through youtube-transcript-api
first, local Whisper on the downloaded audio as fallback) and
``fetch LABEL --audio MEDIA`` (local Whisper on the exact media bytes). An
existing valid transcript is never replaced without ``--force``: it is
validated and gets (or reuses) its exact quality receipt; only known
``youtube_auto`` provenance may gain caption timing, and only when the
captions equal its text modulo Unicode whitespace.

stdout: one JSON object, ``transcript-fetch-result`` v1 on success, the
``cli-failure`` v1 document otherwise. Exit codes: 0 written or validated;
2 refused (invalid arguments or input, no obtainable transcript, quality
floor not met, existing transcript invalid, invalid UTF-8, a writer refusal
or a rolled-back bundle; nothing changed); 1 internal error.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.cli import EXIT_OK, Refusal, emit, progress
from rvault_contracts.writer import BundleReport, FaultHook, Snapshot, read_snapshot

from rvault_transcript import policy
from rvault_transcript.api import OwnerContext, read_quality, read_timing
from rvault_transcript.bundle import BundlePaths, write_bundle
from rvault_transcript.receipts import (
    YOUTUBE_ID,
    ReceiptError,
    Segment,
    build_quality_receipt,
    build_timing_receipt,
    receipt_bytes,
)
from rvault_transcript.segments import normalize, transcript_bytes
from rvault_transcript.text import TextRefusal, decode_utf8, equal_modulo_whitespace, judge_text

EXISTING_SOURCES = ("youtube_auto", "whisper", "manual", "none", "unknown")
TRANSCRIPT_SOURCE = {"captions": "youtube_auto", "whisper": "whisper", "existing": None}

# Tests set this to inject a failure at a named writer step.
bundle_fault: FaultHook | None = None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fetch",
        help="captions first, local Whisper fallback; validated, receipts, one atomic bundle",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "id", metavar="ID_OR_LABEL", help="YouTube id, or a talk label with --audio"
    )
    parser.add_argument("--out", required=True, type=Path, help="transcripts/{id}.txt")
    parser.add_argument(
        "--existing-source",
        required=True,
        choices=EXISTING_SOURCES,
        help="the talk's recorded transcript_source (unknown when absent)",
    )
    parser.add_argument("--audio", type=Path, help="transcribe this local audio or video file")
    parser.add_argument(
        "--duration-seconds", type=float, help="expected runtime; used only if a probe matches"
    )
    parser.add_argument("--min-words", type=int, help="tighten the word floor (never lowers it)")
    parser.add_argument(
        "--force", action="store_true", help="replace an existing transcript bundle"
    )
    parser.add_argument(
        "--model", help="Whisper model name or CTranslate2 directory (env RVAULT_WHISPER_MODEL)"
    )
    parser.add_argument(
        "--language",
        action="append",
        dest="languages",
        help="preferred caption language (repeatable)",
    )
    parser.set_defaults(handler=handle)


@dataclass
class Outcome:
    method: str
    language: str | None
    word_count: int
    min_words: int
    duration_seconds: float | None
    source: dict[str, Any]
    timing_status: dict[str, Any]
    quality_status: dict[str, Any]
    timed: bool
    quality: bool
    write: BundleReport | None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Trust:
    """Durations from probes of the exact source, and the quality provenance they allow."""

    timing_duration: float | None
    quality_provenance: dict[str, Any]
    note: str


def _status(available: bool, code: str, message: str) -> dict[str, Any]:
    return {"available": available, "code": code, "message": message}


def _quality_trust(
    args: argparse.Namespace, probed: float | None, bind: dict[str, str], kind: str
) -> tuple[dict[str, Any], str]:
    claimed = args.duration_seconds
    if claimed is None:
        return {"kind": "fixed_default"}, "no expected duration: fixed default floor"
    if probed is None:
        return {
            "kind": "fixed_default"
        }, "expected duration ignored: the source could not be probed"
    if not policy.durations_match(claimed, probed):
        return {
            "kind": "fixed_default"
        }, f"expected duration {claimed}s ignored: the probe says {probed}s"
    return {"kind": kind, **bind, "duration_seconds": probed}, "expected duration matches the probe"


def _youtube_timing(kind: str, video_id: str, probed: float | None) -> dict[str, Any] | None:
    """Timing provenance of a YouTube source: only a probed duration can bind it."""
    if probed is None:
        return None
    return {"kind": kind, "video_id": video_id, "duration_seconds": probed}


def _judge(data: bytes, min_words: int, code: str, path: Path) -> int:
    """Refusals name ``path``, the transcript the text is (or would be) written to."""
    try:
        text = decode_utf8(data)
        return judge_text(text, min_words).word_count
    except TextRefusal as refusal:
        if refusal.code == "invalid_utf8":
            raise Refusal("invalid_utf8", refusal.message, str(path)) from None
        raise Refusal(code, refusal.message, str(path), reason=refusal.code) from None


def _build_timing(
    data: bytes, source: str, provenance: dict[str, Any] | None, segments: list[Segment] | None
) -> tuple[bytes | None, dict[str, Any]]:
    """Prevalidate optional timing; unusable timing never blocks valid text."""
    if segments is None:
        return None, _status(False, "timing_not_produced", "the source produced no timing")
    if provenance is None:
        return None, _status(
            False, "duration_untrusted", "no probed source duration binds the timing"
        )
    try:
        document = build_timing_receipt(data, source, provenance, segments)
    except ReceiptError as error:
        return None, _status(False, error.code, error.message)
    return receipt_bytes(document), _status(True, "timing_current", "hash-bound timing receipt v2")


def handle(args: argparse.Namespace) -> int:
    out: Path = args.out
    if out.suffix != ".txt":
        raise Refusal("output_not_txt", "--out must name a .txt transcript", str(out))
    if not out.parent.is_dir():
        raise Refusal(
            "output_directory_missing", "the transcript directory does not exist", str(out.parent)
        )
    if args.min_words is not None and args.min_words < 1:
        raise Refusal("invalid_min_words", "--min-words must be a positive integer")
    if args.duration_seconds is not None and not args.duration_seconds > 0:
        raise Refusal("invalid_duration", "--duration-seconds must be positive")
    if args.audio is not None and not args.id.strip():
        # transcript-fetch-result v1 requires a non-empty source label.
        raise Refusal("invalid_label", "LABEL must be a non-empty talk label with --audio", args.id)
    if args.audio is None and not YOUTUBE_ID.fullmatch(args.id):
        raise Refusal(
            "invalid_video_id", "ID must be an 11-character YouTube id (or pass --audio)", args.id
        )
    paths = BundlePaths.for_transcript(out)
    if args.audio is not None:
        _refuse_media_in_bundle(args.audio, paths)
    initial = read_snapshot(out)
    if initial.exists and not args.force:
        outcome = _existing(args, paths, initial)
    elif args.audio is not None:
        outcome = _fresh_local(args, paths, initial)
    else:
        outcome = _fresh_youtube(args, paths, initial)
    for note in outcome.notes:
        progress(f"fetch: {note}")
    document = {
        "ok": True,
        "method": outcome.method,
        "language": outcome.language,
        "transcript_path": str(out),
        "timed_path": str(paths.timing) if outcome.timed else None,
        "quality_path": str(paths.quality) if outcome.quality else None,
        "word_count": outcome.word_count,
        "source": outcome.source,
        "transcript_source": TRANSCRIPT_SOURCE[outcome.method],
        "duration_seconds": outcome.duration_seconds,
        "min_words": outcome.min_words,
        "timing_status": outcome.timing_status,
        "quality_status": outcome.quality_status,
        "write": outcome.write.to_dict() if outcome.write is not None else None,
    }
    emit(document)
    return EXIT_OK


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


def _open_local(args: argparse.Namespace) -> Any:
    media: Path = args.audio
    if media.is_symlink() or not media.is_file():
        raise Refusal(
            "media_not_regular_file", "--audio must be a regular, non-symlink file", str(media)
        )
    return open(media, "rb")


def _probe_local(args: argparse.Namespace, handle: Any) -> LocalSource:
    from rvault_transcript.probe import ProbeError, probe_local

    try:
        media = probe_local(handle)
    except ProbeError as error:
        raise Refusal(error.code, error.message, str(args.audio)) from None
    source = {
        "kind": "local_media",
        "label": args.id,
        "media_path": str(args.audio),
        "media_sha256": media.sha256,
    }
    return LocalSource(media.sha256, media.duration_seconds, source)


def _transcribe(media: Any, model: str | None) -> Any:
    from rvault_transcript.whisper import ModelUnavailable, transcribe

    try:
        return transcribe(media, model=model, progress=progress)
    except ModelUnavailable as error:
        raise Refusal(
            "model_unavailable",
            "the Whisper model (--model or RVAULT_WHISPER_MODEL) cannot be loaded: "
            + error.message,
            error.name,
        ) from None


def _probe_youtube(video_id: str) -> tuple[float | None, str]:
    from rvault_transcript.probe import ProbeError, probe_youtube

    try:
        return probe_youtube(video_id).duration_seconds, "yt-dlp metadata probed"
    except ProbeError as error:
        return None, f"yt-dlp probe failed ({error.code}): {error.message}"


# --------------------------------------------------------------------------- existing


def _existing(args: argparse.Namespace, paths: BundlePaths, initial: Snapshot) -> Outcome:
    assert initial.data is not None
    data = initial.data
    notes: list[str] = []
    youtube = args.audio is None
    if youtube:
        source: dict[str, Any] = {"kind": "youtube", "video_id": args.id}
        probed: float | None = None
        enrich = args.existing_source == "youtube_auto"
        if args.duration_seconds is not None or enrich:
            probed, note = _probe_youtube(args.id)
            notes.append(note)
        quality_provenance, note = _quality_trust(
            args, probed, {"video_id": args.id}, "youtube_duration"
        )
        owner = OwnerContext(video_id=args.id, duration_seconds=probed)
    else:
        with _open_local(args) as handle:
            local = _probe_local(args, handle)
        source = local.source
        probed = local.duration
        enrich = False
        quality_provenance, note = _quality_trust(
            args, probed, {"media_sha256": local.sha256}, "local_media_duration"
        )
        owner = OwnerContext(media_sha256=local.sha256, duration_seconds=probed)
    notes.append(note)
    duration = quality_provenance.get("duration_seconds")
    min_words = policy.effective_min_words(args.min_words, duration)
    word_count = _judge(data, min_words, "existing_transcript_invalid", paths.transcript)
    changes: dict[Path, bytes | None] = {}
    stored = read_quality(paths.transcript, transcript_bytes=data, owner=owner)
    reuse = (
        stored.receipt is not None
        and stored.receipt.min_words >= min_words
        and stored.receipt.duration_seconds == duration
    )
    if reuse:
        assert stored.receipt is not None
        min_words = stored.receipt.min_words
        quality_status = _status(True, "quality_reused", "the existing quality receipt is current")
    else:
        quality = build_quality_receipt(data, min_words, quality_provenance)
        changes[paths.quality] = receipt_bytes(quality)
        quality_status = _status(
            True, "quality_current", "quality receipt v1 written for the existing text"
        )
    timing_status = _status(
        False, "timing_not_enriched", f"existing source {args.existing_source} is not enriched"
    )
    if enrich:
        timing_bytes, timing_status = _caption_enrichment(args, data, probed, notes)
        if timing_bytes is not None:
            changes[paths.timing] = timing_bytes
    report = (
        write_bundle(paths, changes, transcript_read_as=initial, fault=bundle_fault)
        if changes
        else None
    )
    timed = paths.timing in changes
    if not timed:
        current = read_timing(paths.transcript, transcript_bytes=data, owner=owner)
        timed = current.usable
        if timed:
            timing_status = _status(True, "timing_current", "an existing timing receipt is current")
    return Outcome(
        "existing",
        None,
        word_count,
        min_words,
        duration,
        source,
        timing_status,
        quality_status,
        timed,
        True,
        report,
        notes,
    )


def _caption_enrichment(
    args: argparse.Namespace, data: bytes, probed: float | None, notes: list[str]
) -> tuple[bytes | None, dict[str, Any]]:
    from rvault_transcript.captions import CaptionError, fetch_captions

    try:
        track = fetch_captions(args.id, args.languages)
    except CaptionError as error:
        return None, _status(False, error.code, error.message)
    caption_text = transcript_bytes(track.segments).decode("utf-8")
    if not equal_modulo_whitespace(caption_text, decode_utf8(data)):
        notes.append("captions differ from the existing text beyond whitespace: no timing")
        return None, _status(
            False, "caption_text_mismatch", "captions differ from the existing text"
        )
    provenance = _youtube_timing("youtube_captions", args.id, probed)
    return _build_timing(data, "captions", provenance, track.segments)


# --------------------------------------------------------------------------- fresh


def _fresh_outcome(
    args: argparse.Namespace,
    paths: BundlePaths,
    initial: Snapshot,
    data: bytes,
    *,
    method: str,
    language: str | None,
    timing_provenance: dict[str, Any] | None,
    segments: list[Segment] | None,
    quality_provenance: dict[str, Any],
    source: dict[str, Any],
    notes: list[str],
) -> Outcome:
    """Judge freshly acquired text, write its bundle, and describe the result.

    Every fresh acquisition (captions, YouTube Whisper, local Whisper) ends
    the same way; only the method, language and provenances differ.
    """
    timing_bytes, timing_status = _build_timing(data, method, timing_provenance, segments)
    duration = quality_provenance.get("duration_seconds")
    min_words = policy.effective_min_words(args.min_words, duration)
    word_count = _judge(data, min_words, "transcript_quality_failed", paths.transcript)
    quality = build_quality_receipt(data, min_words, quality_provenance)
    changes: dict[Path, bytes | None] = {
        paths.transcript: data,
        paths.quality: receipt_bytes(quality),
        paths.timing: timing_bytes,
    }
    report = write_bundle(paths, changes, transcript_read_as=initial, fault=bundle_fault)
    return Outcome(
        method,
        language,
        word_count,
        min_words,
        duration,
        source,
        timing_status,
        _status(True, "quality_current", "quality receipt v1 written"),
        timing_bytes is not None,
        True,
        report,
        notes,
    )


def _fresh_local(args: argparse.Namespace, paths: BundlePaths, initial: Snapshot) -> Outcome:
    from rvault_transcript.probe import hash_open_file

    notes: list[str] = []
    with _open_local(args) as handle:
        local = _probe_local(args, handle)
        progress(f"fetch: transcribing {args.audio} ({local.duration:.1f} s)")
        result = _transcribe(handle, args.model)
        if hash_open_file(handle)[0] != local.sha256:
            raise Refusal(
                "media_changed", "the media bytes changed while transcribing", str(args.audio)
            )
    segments = normalize(result.segments)
    data = transcript_bytes(segments) if segments else b""
    quality_provenance, note = _quality_trust(
        args, local.duration, {"media_sha256": local.sha256}, "local_media_duration"
    )
    notes.append(note)
    provenance = {
        "kind": "local_media_whisper",
        "media_sha256": local.sha256,
        "duration_seconds": local.duration,
    }
    return _fresh_outcome(
        args,
        paths,
        initial,
        data,
        method="whisper",
        language=result.language,
        timing_provenance=provenance,
        segments=segments,
        quality_provenance=quality_provenance,
        source=local.source,
        notes=notes,
    )


def _fresh_youtube(args: argparse.Namespace, paths: BundlePaths, initial: Snapshot) -> Outcome:
    from rvault_transcript.captions import CaptionError, fetch_captions

    notes: list[str] = []
    video_id = args.id
    source = {"kind": "youtube", "video_id": video_id}
    probed, note = _probe_youtube(video_id)
    notes.append(note)
    quality_provenance, note = _quality_trust(
        args, probed, {"video_id": video_id}, "youtube_duration"
    )
    notes.append(note)
    min_words = policy.effective_min_words(
        args.min_words, quality_provenance.get("duration_seconds")
    )
    caption_problem: str
    try:
        track = fetch_captions(video_id, args.languages)
        data = transcript_bytes(track.segments)
        _judge(data, min_words, "transcript_quality_failed", paths.transcript)
    except CaptionError as error:
        caption_problem = f"{error.code}: {error.message}"
    except Refusal as refusal:
        caption_problem = f"caption text refused ({refusal.code}): {refusal.message}"
    else:
        return _fresh_outcome(
            args,
            paths,
            initial,
            data,
            method="captions",
            language=track.language,
            timing_provenance=_youtube_timing("youtube_captions", video_id, probed),
            segments=track.segments,
            quality_provenance=quality_provenance,
            source=source,
            notes=notes,
        )
    progress(f"fetch: captions unavailable ({caption_problem}); falling back to local Whisper")
    notes.append(f"captions unavailable: {caption_problem}")
    return _youtube_whisper(
        args, paths, initial, probed, quality_provenance, source, notes, caption_problem
    )


def _youtube_whisper(
    args: argparse.Namespace,
    paths: BundlePaths,
    initial: Snapshot,
    probed: float | None,
    quality_provenance: dict[str, Any],
    source: dict[str, Any],
    notes: list[str],
    caption_problem: str,
) -> Outcome:
    from rvault_transcript.probe import ProbeError, download_audio

    with tempfile.TemporaryDirectory(prefix="rvault-transcript-") as tmp:
        try:
            audio = download_audio(args.id, Path(tmp))
        except ProbeError as error:
            raise Refusal(
                "transcript_unavailable",
                f"no caption track ({caption_problem}) and no audio"
                f" ({error.code}: {error.message})",
                args.id,
            ) from None
        progress(f"fetch: transcribing downloaded audio {audio.name}")
        result = _transcribe(str(audio), args.model)
    segments = normalize(result.segments)
    data = transcript_bytes(segments) if segments else b""
    return _fresh_outcome(
        args,
        paths,
        initial,
        data,
        method="whisper",
        language=result.language,
        timing_provenance=_youtube_timing("youtube_whisper", args.id, probed),
        segments=segments,
        quality_provenance=quality_provenance,
        source=source,
        notes=notes,
    )
