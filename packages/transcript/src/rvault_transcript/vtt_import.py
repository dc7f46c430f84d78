"""Import a WebVTT artifact as a transcript bundle (the ``vtt-cleanup`` rules).

:class:`VttImportRequest` says what to import, :func:`import_vtt` checks the
paths, parses the captions (:mod:`rvault_transcript.vtt`), applies quality
policy v1 (a short talk needs a duration a probe of its recording confirms)
and writes transcript, timing receipt v2 (``vtt_artifact``) and quality
receipt as one bundle, returning the ``transcript-fetch-result`` v1 document
or raising :class:`~rvault_contracts.cli.Refusal` with nothing changed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import FaultHook, read_snapshot

from rvault_transcript import policy
from rvault_transcript.bundle import BundlePaths, write_bundle
from rvault_transcript.language import (
    LANGUAGE_TAG,
    Claim,
    LanguageMismatch,
    language_record,
    resolve_language,
)
from rvault_transcript.receipts import (
    ReceiptError,
    Segment,
    build_quality_receipt,
    build_timing_receipt,
    is_safe_relative_path,
    receipt_bytes,
)
from rvault_transcript.segments import transcript_bytes
from rvault_transcript.text import TextRefusal, decode_utf8, judge_text
from rvault_transcript.text import word_count as count_words
from rvault_transcript.text_language import detect_text_languages, vtt_claims
from rvault_transcript.vault import check_output_location
from rvault_transcript.vtt import VttError, vtt_to_segments

# A two-hour rolling caption file is about 0.6 MiB; parsing costs roughly nine
# times the file size in memory, so 32 MiB (~100 hours) bounds a hostile input.
MAX_VTT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class VttImportRequest:
    vtt: Path
    out: Path
    force: bool = False
    media: Path | None = None
    duration_seconds: float | None = None
    vault_root: Path | None = None
    language: str | None = None
    """The operator's statement of the captions' language (``--language``)."""
    fault: FaultHook | None = None
    """The writer's fault hook for tests (a failure injected at a named bundle step)."""


def _short_talk_hint(count: int) -> str:
    seconds = count * 60 // policy.WORDS_PER_MINUTE
    return (
        f"without a trusted duration the floor is {policy.DEFAULT_MIN_WORDS} words; a short talk"
        " qualifies with --media RECORDING --duration-seconds N (N must match a probe of the"
        f" recording), which lowers the floor to {policy.WORDS_PER_MINUTE} words per minute:"
        f" {count} words qualify a recording of up to {seconds} seconds"
    )


def quality_trust(request: VttImportRequest) -> dict[str, Any]:
    """The quality provenance: fixed default, or the probed duration of ``--media``."""
    if request.media is None:
        if request.duration_seconds is not None:
            raise Refusal(
                "duration_unbound",
                "--duration-seconds needs --media: only a probe of the recording can trust it",
                hint="add --media RECORDING (the talk's audio or video file)",
            )
        return {"kind": "fixed_default"}
    if request.duration_seconds is None or not request.duration_seconds > 0:
        raise Refusal(
            "invalid_duration", "--media needs a positive --duration-seconds to check the probe"
        )
    from rvault_transcript.fetch import open_media, probe_media

    with open_media(request.media) as handle:
        local = probe_media(request.media, handle, request.out.stem)
    if not policy.durations_match(request.duration_seconds, local.duration):
        raise Refusal(
            "duration_mismatch",
            f"--duration-seconds {request.duration_seconds} does not match the probe of the"
            f" recording ({local.duration} s)",
            str(request.media),
            hint=f"pass --duration-seconds {local.duration} if this is the talk's recording",
        )
    return {
        "kind": "local_media_duration",
        "media_sha256": local.sha256,
        "duration_seconds": local.duration,
    }


def caption_language(
    request: VttImportRequest, text: str, lines: list[str]
) -> tuple[str | None, dict[str, Any]]:
    """The captions' language and the receipt's record of how it was decided.

    The header and file name are claims; lingua reads the text. A claim
    the text contradicts is refused (``language_mismatch``, the detected
    language named) unless ``--language`` states the language, which is then
    recorded beside what the text said.
    """
    stated = None
    if request.language is not None:
        if not LANGUAGE_TAG.match(request.language):
            raise Refusal(
                "invalid_language",
                f"--language {request.language!r} is not a language code",
                hint="pass an ISO 639 code such as en, de or es-419",
            )
        stated = Claim(request.language, "argument")
    claims = vtt_claims(text, request.vtt.name)
    detection = detect_text_languages(lines)
    try:
        language = resolve_language(claims, detection, stated)
    except LanguageMismatch as mismatch:
        detected = mismatch.detection
        named = detected.primary if detected is not None else None
        raise Refusal(
            "language_mismatch",
            mismatch.message,
            str(request.vtt),
            language=named,
            claimed=[claim.to_dict() for claim in mismatch.claims],
            detected=None if detected is None else detected.to_dict(),
            hint=(
                f"if the captions are in {named}, fix the file's Language: header and name"
                f" (*.{named}.vtt) or pass --language {named}; if the detection is wrong, pass"
                " --language with the right code (both are recorded in the quality receipt)"
                if named
                else "pass --language with the captions' language code"
            ),
        ) from None
    all_claims = ([stated] if stated is not None else []) + claims
    return language, language_record(language, all_claims, detection)


def artifact_relative_path(vtt: Path, out: Path) -> str:
    """The caption file's path relative to the transcript directory, refusing escapes and links."""
    directory = out.parent
    if not directory.is_dir():
        raise Refusal(
            "output_directory_missing", "the transcript directory does not exist", str(directory)
        )
    base = Path(os.path.normpath(directory.absolute()))
    target = Path(os.path.normpath(vtt.absolute()))
    try:
        relative = target.relative_to(base).as_posix()
    except ValueError:
        raise Refusal(
            "vtt_outside_transcript_dir",
            "the VTT file must lie inside the transcript directory",
            str(vtt),
        ) from None
    if not is_safe_relative_path(relative):
        raise Refusal("vtt_outside_transcript_dir", "unsafe VTT path", str(vtt))
    current = base
    for part in relative.split("/"):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            raise Refusal("vtt_missing", "the VTT file does not exist", str(vtt)) from None
        if stat.S_ISLNK(st.st_mode):
            raise Refusal("symlink_refused", "the VTT path passes through a symlink", str(vtt))
    if not stat.S_ISREG(os.lstat(current).st_mode):
        raise Refusal("not_regular_file", "the VTT path is not a regular file", str(vtt))
    return relative


def _read_captions(vtt: Path) -> tuple[bytes, str, list[Segment]]:
    """The caption file's bytes, its text and its cues, bounded by ``MAX_VTT_BYTES``."""
    if os.lstat(vtt).st_size > MAX_VTT_BYTES:
        raise Refusal(
            "vtt_too_large", f"the VTT file is larger than {MAX_VTT_BYTES} bytes", str(vtt)
        )
    raw = read_snapshot(vtt).data
    if raw is None:
        raise Refusal("vtt_missing", "the VTT file does not exist", str(vtt))
    if len(raw) > MAX_VTT_BYTES:
        raise Refusal(
            "vtt_too_large", f"the VTT file is larger than {MAX_VTT_BYTES} bytes", str(vtt)
        )
    try:
        text = decode_utf8(raw)
        segments = vtt_to_segments(text)
    except TextRefusal as refusal:
        raise Refusal(refusal.code, refusal.message, str(vtt)) from None
    except VttError as error:
        raise Refusal(error.code, error.message, str(vtt)) from None
    return raw, text, segments


def _word_count(data: bytes, min_words: int, vtt: Path) -> int:
    """The transcript's word count, refused below ``min_words`` (with the short-talk hint)."""
    try:
        return judge_text(data.decode("utf-8"), min_words).word_count
    except TextRefusal as refusal:
        context: dict[str, Any] = {"reason": refusal.code}
        if refusal.code == "too_few_words":
            context["hint"] = _short_talk_hint(count_words(data.decode("utf-8")))
        raise Refusal("transcript_quality_failed", refusal.message, str(vtt), **context) from None


def import_vtt(request: VttImportRequest) -> dict[str, Any]:
    """Run one import; the result document, or a Refusal with nothing changed."""
    vtt: Path = request.vtt
    out: Path = request.out
    if out.suffix != ".txt":
        raise Refusal("output_not_txt", "OUT must name a .txt transcript", str(out))
    relative = artifact_relative_path(vtt, out)
    check_output_location(out, request.vault_root)
    paths = BundlePaths.for_transcript(out)
    # ``relative`` is normalized against the transcript directory, so an absolute,
    # ``./`` or ``dir/..`` spelling of the same name cannot slip past a lexical check.
    if relative in {p.name for p in paths.all()}:
        raise Refusal(
            "output_collides_with_input", "the output bundle would overwrite the VTT file", str(vtt)
        )
    initial = read_snapshot(out)
    if initial.exists and not request.force:
        raise Refusal(
            "output_exists", "the transcript exists; pass --force to replace its bundle", str(out)
        )
    raw, text, segments = _read_captions(vtt)
    data = transcript_bytes(segments)
    provenance = {
        "kind": "vtt_artifact",
        "artifact_path": relative,
        "artifact_sha256": sha256_bytes(raw),
        "cue_extent_seconds": segments[-1].end_seconds,
    }
    try:
        timing = build_timing_receipt(data, "vtt", provenance, segments)
    except ReceiptError as error:
        raise Refusal("timing_invalid", error.message, str(vtt), reason=error.code) from None
    trust = quality_trust(request)
    min_words = policy.effective_min_words(None, trust.get("duration_seconds"))
    word_count = _word_count(data, min_words, vtt)
    language, record = caption_language(request, text, [s.text for s in segments])
    quality_bytes = receipt_bytes(build_quality_receipt(data, min_words, trust, record))
    changes = {
        paths.transcript: data,
        paths.timing: receipt_bytes(timing),
        paths.quality: quality_bytes,
    }
    report = write_bundle(paths, changes, transcript_read_as=initial, fault=request.fault)
    return {
        "ok": True,
        "method": "vtt",
        "language": language,
        "transcript_path": str(out),
        "timed_path": str(paths.timing),
        "quality_path": str(paths.quality),
        "word_count": word_count,
        "source": {
            "kind": "vtt",
            "artifact_path": relative,
            "artifact_sha256": provenance["artifact_sha256"],
        },
        "transcript_source": None,
        "duration_seconds": trust.get("duration_seconds"),
        "min_words": min_words,
        "timing_status": {
            "available": True,
            "code": "timing_current",
            "message": "hash-bound timing receipt v2",
        },
        "quality_status": {
            "available": True,
            "code": "quality_current",
            "message": "quality receipt v2 written",
        },
        "write": report.to_dict(),
    }
