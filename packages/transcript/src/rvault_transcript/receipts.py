"""Timing receipt v2 and quality receipt v2 (v1 readable): builders and strict validators.

Both receipts bind the SHA-256 of the exact transcript bytes (never decoded
or newline-normalized text), so any byte change, CRLF->LF included,
invalidates them. The validators are the single authority used by the
writer (before it stages a bundle), by ``rvault-transcript verify`` and by
consumers through :mod:`rvault_transcript.api`. Each failure carries a stable
code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rvault_contracts.canonical import artifact_bytes, is_sha256_hex, sha256_bytes
from rvault_contracts.errors import Refusal
from rvault_contracts.schemas import load_schema, schema_issues

from rvault_transcript import policy
from rvault_transcript.language import MIXED_SHARE
from rvault_transcript.text import (
    TextRefusal,
    collapse_whitespace,
    decode_utf8,
    equal_modulo_whitespace,
    judge_text,
)

TIMING_SCHEMA_VERSION = 2
# The quality receipt written now; v1 (no ``language``) stays readable.
QUALITY_SCHEMA_VERSION = 2
QUALITY_READABLE_VERSIONS = (1, 2)
TIMING_ARTIFACT = "transcript-timing"
QUALITY_ARTIFACT = "transcript-quality"
BOUND_TOLERANCE_SECONDS = 1.0

# Field lists, provenance kinds and the YouTube id pattern are read from the
# contract schemas, so the checks below (stable codes) cannot drift from them.
_TIMING_SCHEMA = load_schema(TIMING_ARTIFACT, TIMING_SCHEMA_VERSION)
_QUALITY_SCHEMAS = {v: load_schema(QUALITY_ARTIFACT, v) for v in QUALITY_READABLE_VERSIONS}
_QUALITY_SCHEMA = _QUALITY_SCHEMAS[QUALITY_SCHEMA_VERSION]


def _keys_by_kind(variants: list[dict[str, Any]]) -> dict[str, frozenset[str]]:
    return {v["properties"]["kind"]["const"]: frozenset(v["required"]) for v in variants}


TIMING_KEYS = frozenset(_TIMING_SCHEMA["required"])
QUALITY_KEYS = {v: frozenset(schema["required"]) for v, schema in _QUALITY_SCHEMAS.items()}
SEGMENT_KEYS = frozenset(_TIMING_SCHEMA["$defs"]["segment"]["required"])
POLICY_KEYS = frozenset(_QUALITY_SCHEMA["properties"]["policy"]["required"])
TIMING_PROVENANCE_KEYS = _keys_by_kind(_TIMING_SCHEMA["properties"]["provenance"]["oneOf"])
QUALITY_PROVENANCE_KEYS = _keys_by_kind(_QUALITY_SCHEMA["properties"]["provenance"]["oneOf"])
SOURCE_FOR_KIND = {
    "youtube_captions": "captions",
    "youtube_whisper": "whisper",
    "local_media_whisper": "whisper",
    "vtt_artifact": "vtt",
}
YOUTUBE_ID = re.compile(_TIMING_SCHEMA["$defs"]["video_id"]["pattern"])


class ReceiptError(Refusal):
    """A receipt refused by a builder or validator, with a stable code and its JSON path."""

    def __init__(self, code: str, message: str, path: str = "$") -> None:
        super().__init__(code, message, path)

    def __str__(self) -> str:
        return f"{self.code} at {self.path}: {self.message}"


@dataclass(frozen=True)
class Segment:
    text: str
    start_seconds: float
    end_seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "start_seconds": self.start_seconds,
            "end_seconds": self.end_seconds,
        }


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _positive(value: object, path: str) -> float:
    if not _is_number(value) or value <= 0:  # type: ignore[operator]
        raise ReceiptError(
            "invalid_duration", "a trusted duration must be a positive finite number", path
        )
    return float(value)  # type: ignore[arg-type]


def canonical_seconds(value: float) -> float:
    """Millisecond resolution, the canonical time grid of every receipt."""
    rounded = round(float(value), 3)
    return 0.0 if rounded == 0 else rounded


def is_safe_relative_path(value: object) -> bool:
    """A POSIX path relative to the transcript directory that cannot escape it."""
    if not isinstance(value, str) or not value or "\\" in value or "\x00" in value:
        return False
    if value.startswith("/"):
        return False
    parts = value.split("/")
    return all(part not in ("", ".", "..") for part in parts)


def _exact_keys(document: Any, keys: frozenset[str], path: str, code: str) -> Mapping[str, Any]:
    if not isinstance(document, dict):
        raise ReceiptError(code, "expected an object", path)
    if set(document) != keys:
        missing = sorted(keys - set(document))
        extra = sorted(set(document) - keys)
        raise ReceiptError(code, f"keys differ: missing {missing}, unexpected {extra}", path)
    return document


def _schema_version(document: Mapping[str, Any], expected: int, code: str) -> None:
    value = document.get("schema_version")
    if isinstance(value, bool) or value != expected or not isinstance(value, int):
        raise ReceiptError(
            code, f"schema_version must be the integer {expected}", "$.schema_version"
        )


def _check_transcript_hash(document: Mapping[str, Any], transcript_bytes: bytes) -> None:
    if document["transcript_sha256"] != sha256_bytes(transcript_bytes):
        raise ReceiptError(
            "transcript_hash_mismatch",
            "the transcript bytes changed since the receipt",
            "$.transcript_sha256",
        )


def _check_segments(raw: Any) -> list[Segment]:
    if not isinstance(raw, list) or not raw:
        raise ReceiptError("invalid_segments", "segments must be a non-empty array", "$.segments")
    segments: list[Segment] = []
    previous_end = 0.0
    for index, item in enumerate(raw):
        path = f"$.segments[{index}]"
        _exact_keys(item, SEGMENT_KEYS, path, "invalid_segments")
        text = item["text"]
        if not isinstance(text, str) or not text or text != collapse_whitespace(text):
            raise ReceiptError(
                "segment_not_canonical", "segment text must be non-empty with single spaces", path
            )
        start, end = item["start_seconds"], item["end_seconds"]
        for name, value in (("start_seconds", start), ("end_seconds", end)):
            if not _is_number(value) or value < 0 or canonical_seconds(value) != value:
                raise ReceiptError(
                    "segment_not_canonical",
                    f"{name} must be a non-negative number at millisecond resolution",
                    f"{path}.{name}",
                )
        if end <= start:
            raise ReceiptError(
                "segment_not_canonical",
                "a segment must end after it starts (positive length)",
                path,
            )
        if start < previous_end:
            raise ReceiptError(
                "segment_not_canonical", "segments must be ordered and must not overlap", path
            )
        previous_end = float(end)
        segments.append(Segment(text, float(start), float(end)))
    return segments


def _check_owner_ids(provenance: Any) -> None:
    """The owner identifiers a provenance may carry are well formed."""
    if "video_id" in provenance and (
        not isinstance(provenance["video_id"], str)
        or not YOUTUBE_ID.fullmatch(provenance["video_id"])
    ):
        raise ReceiptError(
            "invalid_provenance",
            "video_id must be an 11-character YouTube id",
            "$.provenance.video_id",
        )
    if "media_sha256" in provenance and not is_sha256_hex(provenance["media_sha256"]):
        raise ReceiptError(
            "invalid_provenance",
            "media_sha256 must be 64 lowercase hex",
            "$.provenance.media_sha256",
        )


def _check_timing_provenance(raw: Any, source: Any) -> Mapping[str, Any]:
    if not isinstance(raw, dict) or raw.get("kind") not in TIMING_PROVENANCE_KEYS:
        raise ReceiptError("invalid_provenance", "unknown timing provenance kind", "$.provenance")
    kind = raw["kind"]
    _exact_keys(raw, TIMING_PROVENANCE_KEYS[kind], "$.provenance", "invalid_provenance")
    if SOURCE_FOR_KIND[kind] != source:
        raise ReceiptError(
            "invalid_provenance",
            f"source {source!r} is incompatible with provenance {kind}",
            "$.source",
        )
    _check_owner_ids(raw)
    if "duration_seconds" in raw:
        _positive(raw["duration_seconds"], "$.provenance.duration_seconds")
    if kind == "vtt_artifact":
        if not is_safe_relative_path(raw["artifact_path"]):
            raise ReceiptError(
                "unsafe_artifact_path",
                "artifact_path must be a safe relative POSIX path",
                "$.provenance.artifact_path",
            )
        if not is_sha256_hex(raw["artifact_sha256"]):
            raise ReceiptError(
                "invalid_provenance",
                "artifact_sha256 must be 64 lowercase hex",
                "$.provenance.artifact_sha256",
            )
        extent = raw["cue_extent_seconds"]
        if not _is_number(extent) or extent < 0 or canonical_seconds(extent) != extent:
            raise ReceiptError(
                "invalid_provenance",
                "cue_extent_seconds must be a non-negative millisecond number",
                "$.provenance.cue_extent_seconds",
            )
    return raw


@dataclass(frozen=True)
class TimingReceipt:
    document: dict[str, Any]
    segments: tuple[Segment, ...]

    @property
    def provenance(self) -> Mapping[str, Any]:
        return self.document["provenance"]

    @property
    def source(self) -> str:
        return str(self.document["source"])


def validate_timing(document: Any, transcript_bytes: bytes) -> TimingReceipt:
    """Every owner-independent rule of timing receipt v2 against the exact transcript bytes."""
    if not isinstance(document, dict):
        raise ReceiptError("invalid_timing_receipt", "expected an object")
    _schema_version(document, TIMING_SCHEMA_VERSION, "unsupported_timing_version")
    _exact_keys(document, TIMING_KEYS, "$", "invalid_timing_receipt")
    # The schema checks the envelope and one segment; _check_segments applies
    # stricter rules to every segment, so a two-hour talk is not validated
    # twice (jsonschema costs ~0.3 ms per segment).
    segments_raw = document["segments"]
    envelope = (
        dict(document, segments=segments_raw[:1]) if isinstance(segments_raw, list) else document
    )
    issues = schema_issues(TIMING_ARTIFACT, TIMING_SCHEMA_VERSION, envelope)
    if issues:
        raise ReceiptError("schema_violation", issues[0].message, issues[0].path)
    _check_transcript_hash(document, transcript_bytes)
    provenance = _check_timing_provenance(document["provenance"], document["source"])
    segments = _check_segments(document["segments"])
    text = decode_utf8_receipt(transcript_bytes)
    joined = " ".join(segment.text for segment in segments)
    if not equal_modulo_whitespace(joined, text):
        raise ReceiptError(
            "segment_text_mismatch",
            "joined segment text differs from the transcript beyond whitespace",
            "$.segments",
        )
    final_end = segments[-1].end_seconds
    if provenance["kind"] == "vtt_artifact":
        if provenance["cue_extent_seconds"] != final_end:
            raise ReceiptError(
                "cue_extent_mismatch",
                "cue_extent_seconds must equal the final segment end",
                "$.provenance",
            )
        bound = float(provenance["cue_extent_seconds"])
    else:
        bound = float(provenance["duration_seconds"])
    for index, segment in enumerate(segments):
        if segment.end_seconds > bound + BOUND_TOLERANCE_SECONDS:
            raise ReceiptError(
                "segment_out_of_bounds",
                f"segment ends at {segment.end_seconds}s, past the source duration {bound}s",
                f"$.segments[{index}]",
            )
    return TimingReceipt(document, tuple(segments))


def decode_utf8_receipt(data: bytes) -> str:
    try:
        return decode_utf8(data)
    except TextRefusal as refusal:
        raise ReceiptError(refusal.code, refusal.message) from None


def build_timing_receipt(
    transcript_bytes: bytes, source: str, provenance: Mapping[str, Any], segments: Sequence[Segment]
) -> dict[str, Any]:
    """A strict builder: returns a receipt that :func:`validate_timing` accepts, or raises."""
    document = {
        "schema_version": TIMING_SCHEMA_VERSION,
        "transcript_sha256": sha256_bytes(transcript_bytes),
        "source": source,
        "provenance": dict(provenance),
        "segments": [segment.to_dict() for segment in segments],
    }
    validate_timing(document, transcript_bytes)
    return document


@dataclass(frozen=True)
class QualityReceipt:
    document: dict[str, Any]
    word_count: int

    @property
    def provenance(self) -> Mapping[str, Any]:
        return self.document["provenance"]

    @property
    def min_words(self) -> int:
        return int(self.document["policy"]["min_words"])

    @property
    def duration_seconds(self) -> float | None:
        value = self.document["policy"]["duration_seconds"]
        return None if value is None else float(value)

    @property
    def language(self) -> Mapping[str, Any] | None:
        """The v2 ``language`` record (claimed and detected languages); None in a v1 receipt."""
        return self.document.get("language")


def _quality_version(document: Mapping[str, Any]) -> int:
    value = document.get("schema_version")
    if isinstance(value, bool) or not isinstance(value, int) or value not in _QUALITY_SCHEMAS:
        raise ReceiptError(
            "unsupported_quality_version",
            f"schema_version must be one of {list(QUALITY_READABLE_VERSIONS)}",
            "$.schema_version",
        )
    return value


def _check_detected_languages(detected: Mapping[str, Any] | None) -> None:
    """Beyond the schema: distinct languages, largest share first, ``mixed`` true to them."""
    if detected is None:
        return
    path = "$.language.detected"
    codes = [entry["language"] for entry in detected["languages"]]
    shares = [entry["share"] for entry in detected["languages"]]
    if len(set(codes)) != len(codes) or shares != sorted(shares, reverse=True):
        raise ReceiptError(
            "invalid_language_record", "languages must be distinct, largest share first", path
        )
    if detected["mixed"] != (sum(1 for share in shares if share >= MIXED_SHARE) >= 2):
        raise ReceiptError(
            "invalid_language_record",
            f"mixed is true exactly when two languages have a share of at least {MIXED_SHARE}",
            path + ".mixed",
        )


def validate_quality(document: Any, transcript_bytes: bytes) -> QualityReceipt:
    """Every owner-independent rule of quality receipt v1/v2, re-running the policy on the bytes."""
    if not isinstance(document, dict):
        raise ReceiptError("invalid_quality_receipt", "expected an object")
    version = _quality_version(document)
    _exact_keys(document, QUALITY_KEYS[version], "$", "invalid_quality_receipt")
    issues = schema_issues(QUALITY_ARTIFACT, version, document)
    if issues:
        raise ReceiptError("schema_violation", issues[0].message, issues[0].path)
    _check_transcript_hash(document, transcript_bytes)
    if version >= 2:
        _check_detected_languages(document["language"]["detected"])
    raw_policy = _exact_keys(document["policy"], POLICY_KEYS, "$.policy", "invalid_policy")
    _schema_version(raw_policy, policy.POLICY_SCHEMA_VERSION, "unsupported_policy_version")
    min_words = raw_policy["min_words"]
    if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1:
        raise ReceiptError(
            "invalid_policy", "min_words must be a positive integer", "$.policy.min_words"
        )
    duration = raw_policy["duration_seconds"]
    provenance = document["provenance"]
    if not isinstance(provenance, dict) or provenance.get("kind") not in QUALITY_PROVENANCE_KEYS:
        raise ReceiptError("invalid_provenance", "unknown quality provenance kind", "$.provenance")
    _exact_keys(
        provenance,
        QUALITY_PROVENANCE_KEYS[provenance["kind"]],
        "$.provenance",
        "invalid_provenance",
    )
    if duration is None:
        if provenance["kind"] != "fixed_default":
            raise ReceiptError(
                "invalid_provenance",
                "a policy without duration has fixed_default provenance",
                "$.provenance",
            )
    else:
        _positive(duration, "$.policy.duration_seconds")
        if provenance["kind"] == "fixed_default":
            raise ReceiptError(
                "invalid_provenance",
                "a duration-bearing policy needs a duration-bound provenance",
                "$.provenance",
            )
        repeated = provenance["duration_seconds"]
        if type(repeated) is not type(duration) or repeated != duration:
            raise ReceiptError(
                "invalid_provenance",
                "provenance must repeat the policy duration exactly",
                "$.provenance.duration_seconds",
            )
        _check_owner_ids(provenance)
    floor = policy.derived_floor(None if duration is None else float(duration))
    if min_words < floor:
        raise ReceiptError(
            "policy_floor_too_low",
            f"min_words {min_words} is below the policy floor {floor}",
            "$.policy.min_words",
        )
    text = decode_utf8_receipt(transcript_bytes)
    try:
        verdict = judge_text(text, min_words)
    except TextRefusal as refusal:
        raise ReceiptError("quality_policy_failed", refusal.message, "$") from None
    return QualityReceipt(document, verdict.word_count)


def build_quality_receipt(
    transcript_bytes: bytes,
    min_words: int,
    quality_provenance: Mapping[str, Any],
    language: Mapping[str, Any],
) -> dict[str, Any]:
    """A strict builder for quality receipt v2; the policy duration comes from the provenance.

    ``language`` is :func:`rvault_transcript.language.language_record`'s object.
    """
    duration = quality_provenance.get("duration_seconds")
    document = {
        "schema_version": QUALITY_SCHEMA_VERSION,
        "transcript_sha256": sha256_bytes(transcript_bytes),
        "policy": policy.policy_document(min_words, duration),
        "provenance": dict(quality_provenance),
        "language": dict(language),
    }
    validate_quality(document, transcript_bytes)
    return document


def receipt_bytes(document: Mapping[str, Any]) -> bytes:
    """The deterministic on-disk encoding of a receipt."""
    return artifact_bytes(document)
