"""Every rule of timing receipt v2 and quality receipt v2 (v1 readable), and a refusal for each
broken form."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_transcript import policy
from rvault_transcript.api import OwnerContext, read_quality, read_timing
from rvault_transcript.language import Claim, Detection, language_record
from rvault_transcript.receipts import (
    ReceiptError,
    Segment,
    build_quality_receipt,
    build_timing_receipt,
    receipt_bytes,
    validate_quality,
    validate_timing,
)
from rvault_transcript.text import TextRefusal, judge_text

WORDS = [f"word{i}" for i in range(420)]
SEGMENTS = [
    Segment(" ".join(WORDS[k * 10 : k * 10 + 10]), k * 1.5, k * 1.5 + 1.25) for k in range(42)
]
DATA = ("\n".join(s.text for s in SEGMENTS) + "\n").encode()
SHA = "a" * 64
# What a VTT import of a file named *.en.vtt whose text reads 80 % English records.
LANGUAGE = language_record(
    "en",
    [Claim("en", "vtt_file_name")],
    Detection("lingua", (("en", 0.8), ("es", 0.2))),
)
VIDEO = "dQw4w9WgXcQ"

PROVENANCES: dict[str, tuple[str, dict[str, Any]]] = {
    "youtube_captions": (
        "captions",
        {"kind": "youtube_captions", "video_id": VIDEO, "duration_seconds": 63.0},
    ),
    "youtube_whisper": (
        "whisper",
        {"kind": "youtube_whisper", "video_id": VIDEO, "duration_seconds": 63.0},
    ),
    "local_media_whisper": (
        "whisper",
        {"kind": "local_media_whisper", "media_sha256": SHA, "duration_seconds": 63.0},
    ),
    "vtt_artifact": (
        "vtt",
        {
            "kind": "vtt_artifact",
            "artifact_path": "a.vtt",
            "artifact_sha256": SHA,
            "cue_extent_seconds": 62.75,
        },
    ),
}


def timing(kind: str = "youtube_captions") -> dict[str, Any]:
    source, provenance = PROVENANCES[kind]
    return build_timing_receipt(DATA, source, provenance, SEGMENTS)


@pytest.mark.parametrize("kind", sorted(PROVENANCES))
def test_each_timing_provenance_shape_is_accepted(kind: str) -> None:
    receipt = validate_timing(timing(kind), DATA)
    assert receipt.segments[0].text.startswith("word0 word1")
    assert receipt.document["transcript_sha256"] == sha256_bytes(DATA)


def _set(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    broken = copy.deepcopy(document)
    target = broken
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return broken


_DELETE = object()

YT, LM, VT = "youtube_captions", "local_media_whisper", "vtt_artifact"
PROV, SEG, BAD = "provenance", "segments", "segment_not_canonical"
TIMING_BREAKS = [
    ("extra top-level key", YT, ("extra",), 1, "invalid_timing_receipt"),
    ("missing segments", YT, ("segments",), _DELETE, "invalid_timing_receipt"),
    ("archival version", YT, ("schema_version",), 1, "unsupported_timing_version"),
    ("boolean version", YT, ("schema_version",), True, "unsupported_timing_version"),
    ("source/provenance mismatch", YT, ("source",), "whisper", "invalid_provenance"),
    ("vtt source on captions", YT, ("source",), "vtt", "invalid_provenance"),
    ("extra provenance key", YT, (PROV, "title"), "x", "schema_violation"),
    ("zero duration", "youtube_whisper", (PROV, "duration_seconds"), 0, "schema_violation"),
    ("bad video id", "youtube_whisper", (PROV, "video_id"), "short", "schema_violation"),
    ("bad media digest", LM, (PROV, "media_sha256"), "A" * 64, "schema_violation"),
    ("absolute vtt path", VT, (PROV, "artifact_path"), "/etc/a.vtt", "schema_violation"),
    ("escaping vtt path", VT, (PROV, "artifact_path"), "../a.vtt", "schema_violation"),
    ("cue extent not final end", VT, (PROV, "cue_extent_seconds"), 70.0, "cue_extent_mismatch"),
    ("empty segments", YT, ("segments",), [], "schema_violation"),
    ("segment extra key", YT, (SEG, 0, "speaker"), "A", "schema_violation"),
    ("double space text", YT, (SEG, 0, "text"), "word0  word1", BAD),
    ("sub-millisecond time", YT, (SEG, 0, "end_seconds"), 1.2501, BAD),
    ("end before start", YT, (SEG, 1, "end_seconds"), 1.0, BAD),
    ("overlap", YT, (SEG, 1, "start_seconds"), 1.0, BAD),
    ("text changed", YT, (SEG, 0, "text"), "word0", "segment_text_mismatch"),
    ("hash of other bytes", YT, ("transcript_sha256",), SHA, "transcript_hash_mismatch"),
    # The schema sees only the first segment; every later one is checked field by field.
    ("later segment not an object", YT, (SEG, 1), "word10 word11", "invalid_segments"),
    ("later segment extra key", YT, (SEG, 1, "speaker"), "A", "invalid_segments"),
    ("later segment without end", YT, (SEG, 41, "end_seconds"), _DELETE, "invalid_segments"),
]


@pytest.mark.parametrize(
    ("name", "kind", "path", "value", "code"), TIMING_BREAKS, ids=[b[0] for b in TIMING_BREAKS]
)
def test_broken_timing_receipts_are_refused(
    name: str, kind: str, path: tuple, value: Any, code: str
) -> None:
    with pytest.raises(ReceiptError) as raised:
        validate_timing(_set(timing(kind), path, value), DATA)
    assert raised.value.code == code, raised.value


def test_segments_past_the_source_duration_are_refused_beyond_one_second() -> None:
    source, provenance = PROVENANCES["youtube_captions"]
    inside = dict(provenance, duration_seconds=61.8)  # final end 62.75 <= 61.8 + 1
    build_timing_receipt(DATA, source, inside, SEGMENTS)
    with pytest.raises(ReceiptError) as raised:
        build_timing_receipt(DATA, source, dict(provenance, duration_seconds=61.7), SEGMENTS)
    assert raised.value.code == "segment_out_of_bounds"


def test_whitespace_layout_may_differ_but_crlf_bytes_invalidate() -> None:
    reflowed = b"  " + DATA.replace(b"\n", b" \t\xc2\xa0")
    build_timing_receipt(reflowed, *PROVENANCES["youtube_captions"], SEGMENTS)
    receipt = timing()
    with pytest.raises(ReceiptError) as raised:
        validate_timing(receipt, DATA.replace(b"\n", b"\r\n"))
    assert raised.value.code == "transcript_hash_mismatch"
    quality = build_quality_receipt(DATA, 400, {"kind": "fixed_default"}, LANGUAGE)
    with pytest.raises(ReceiptError) as raised:
        validate_quality(quality, DATA.replace(b"\n", b"\r\n"))
    assert raised.value.code == "transcript_hash_mismatch"


def test_invalid_utf8_fails_explicitly() -> None:
    data = DATA + b"\xff"
    receipt = dict(timing(), transcript_sha256=sha256_bytes(data))
    with pytest.raises(ReceiptError) as raised:
        validate_timing(receipt, data)
    assert raised.value.code == "invalid_utf8"


# --------------------------------------------------------------------------- quality


def quality(
    kind: str = "fixed_default", duration: float | None = None, min_words: int = 400
) -> dict[str, Any]:
    provenance: dict[str, Any] = {"kind": kind}
    if kind == "youtube_duration":
        provenance |= {"video_id": VIDEO, "duration_seconds": duration}
    if kind == "local_media_duration":
        provenance |= {"media_sha256": SHA, "duration_seconds": duration}
    return build_quality_receipt(DATA, min_words, provenance, LANGUAGE)


def test_quality_shapes_are_accepted() -> None:
    assert validate_quality(quality(), DATA).word_count == 420
    assert validate_quality(quality("youtube_duration", 120.0, 60), DATA).min_words == 60
    assert (
        validate_quality(quality("local_media_duration", 60.5, 31), DATA).duration_seconds == 60.5
    )


QUALITY_BREAKS = [
    ("default floor lowered", ("policy", "min_words"), 399, "policy_floor_too_low"),
    ("extra key", ("note",), "x", "invalid_quality_receipt"),
    ("policy extra key", ("policy", "source"), "x", "schema_violation"),
    ("policy version 2", ("policy", "schema_version"), 2, "schema_violation"),
    ("duration without provenance", ("policy", "duration_seconds"), 120.0, "invalid_provenance"),
    ("unknown provenance", ("provenance", "kind"), "trusted", "schema_violation"),
    ("hash of other bytes", ("transcript_sha256",), SHA, "transcript_hash_mismatch"),
    ("floor above the text", ("policy", "min_words"), 421, "quality_policy_failed"),
    # JSON Schema counts 1.0 as the integer 1; the receipt rules want a JSON integer.
    ("policy version 1.0", ("policy", "schema_version"), 1.0, "unsupported_policy_version"),
    ("min_words 400.0", ("policy", "min_words"), 400.0, "invalid_policy"),
    ("version 3", ("schema_version",), 3, "unsupported_quality_version"),
    ("no language", ("language",), _DELETE, "invalid_quality_receipt"),
    ("language not a code", ("language", "language"), "english", "schema_violation"),
    ("unknown claim source", ("language", "claimed", 0, "source"), "guess", "schema_violation"),
    ("unknown detector", ("language", "detected", "detector"), "cld3", "schema_violation"),
    ("zero share", ("language", "detected", "languages", 1, "share"), 0, "schema_violation"),
    ("mixed denied", ("language", "detected", "mixed"), False, "invalid_language_record"),
    (
        "smaller share first",
        ("language", "detected", "languages"),
        [{"language": "es", "share": 0.2}, {"language": "en", "share": 0.8}],
        "invalid_language_record",
    ),
    (
        "a language twice",
        ("language", "detected", "languages"),
        [{"language": "en", "share": 0.5}, {"language": "en", "share": 0.5}],
        "invalid_language_record",
    ),
]


@pytest.mark.parametrize(
    ("name", "path", "value", "code"), QUALITY_BREAKS, ids=[b[0] for b in QUALITY_BREAKS]
)
def test_broken_quality_receipts_are_refused(name: str, path: tuple, value: Any, code: str) -> None:
    with pytest.raises(ReceiptError) as raised:
        validate_quality(_set(quality(), path, value), DATA)
    assert raised.value.code == code


def test_the_language_record_is_kept_and_read_back() -> None:
    receipt = validate_quality(quality(), DATA)
    assert receipt.document["schema_version"] == 2
    assert receipt.language == {
        "language": "en",
        "claimed": [{"language": "en", "source": "vtt_file_name"}],
        "detected": {
            "detector": "lingua",
            "languages": [{"language": "en", "share": 0.8}, {"language": "es", "share": 0.2}],
            "mixed": True,
        },
    }
    undecided = _set(quality(), ("language", "detected"), None)
    assert validate_quality(undecided, DATA).language["detected"] is None


def test_a_v1_receipt_stays_readable() -> None:
    """Receipts written before v2 have no language and are still current evidence."""
    v1 = {key: value for key, value in quality().items() if key != "language"}
    v1["schema_version"] = 1
    receipt = validate_quality(v1, DATA)
    assert receipt.word_count == 420 and receipt.language is None
    with pytest.raises(ReceiptError) as raised:  # v1 never carries a language
        validate_quality(dict(v1, language=LANGUAGE), DATA)
    assert raised.value.code == "invalid_quality_receipt"


def test_duration_bound_quality_rules() -> None:
    good = quality("youtube_duration", 120.0, 60)
    with pytest.raises(ReceiptError) as raised:  # below 30 words per minute of 120 s
        validate_quality(_set(good, ("policy", "min_words"), 59), DATA)
    assert raised.value.code == "policy_floor_too_low"
    for repeated in (120.5, 120):  # the provenance must repeat the policy duration exactly
        with pytest.raises(ReceiptError) as raised:
            validate_quality(_set(good, ("provenance", "duration_seconds"), repeated), DATA)
        assert raised.value.code == "invalid_provenance"
    with pytest.raises(ReceiptError) as raised:
        validate_quality(_set(good, ("policy", "duration_seconds"), None), DATA)
    assert raised.value.code == "invalid_provenance"


def test_text_rules_and_policy_arithmetic() -> None:
    assert policy.derived_floor(None) == 400
    assert policy.derived_floor(60.0) == 30 and policy.derived_floor(61.0) == 31
    assert policy.derived_floor(3600.0) == 400
    assert policy.effective_min_words(10, 60.0) == 30 and policy.effective_min_words(45, 60.0) == 45
    assert (
        policy.effective_min_words(None, None) == 400
        and policy.effective_min_words(500, None) == 500
    )
    cases = {
        "": "empty_text",
        "   \n\t": "empty_text",
        "TODO: transcript goes here": "stub_text",
        "lorem ipsum dolor sit amet " * 100: "stub_text",
        "ok " * 500: "repetitive_text",
        "bad \ufffd decode " * 200: "replacement_characters",
        'Traceback (most recent call last):\n  File "x.py", line 1\nKeyError: 1': "traceback_text",
    }
    for text, code in cases.items():
        with pytest.raises(TextRefusal) as raised:
            judge_text(text, 1)
        assert raised.value.code == code, text
    assert judge_text(" ".join(WORDS), 400).word_count == 420


# --------------------------------------------------------------------------- readers


@pytest.fixture
def on_disk(tmp_path: Path) -> Path:
    out = tmp_path / "talk.txt"
    out.write_bytes(DATA)
    (tmp_path / "talk.quality.json").write_bytes(
        receipt_bytes(quality("youtube_duration", 120.0, 60))
    )
    (tmp_path / "talk.segments.json").write_bytes(receipt_bytes(timing()))
    return out


def test_readers_bind_owner_context(on_disk: Path) -> None:
    owner = OwnerContext(video_id=VIDEO, duration_seconds=120.0)
    assert read_quality(on_disk, owner=owner).usable
    assert read_timing(on_disk, owner=OwnerContext(video_id=VIDEO, duration_seconds=63.0)).usable
    assert read_quality(on_disk).code == "owner_context_missing"
    assert read_timing(on_disk).code == "owner_context_missing"
    drift = read_quality(on_disk, owner=OwnerContext(video_id=VIDEO, duration_seconds=150.0))
    assert drift.code == "transcript_quality_context_drift"
    assert (
        read_timing(on_disk, owner=OwnerContext(video_id=VIDEO, duration_seconds=90.0)).code
        == "duration_drift"
    )


@pytest.mark.parametrize(
    "archival",
    [
        lambda: {
            "schema_version": 1,
            "transcript_sha256": sha256_bytes(DATA),
            "segments": [{"text": "word0", "start": 0, "end": 1}],
        },
        lambda: [{"text": "word0", "start": 0.0, "end": 1.0}],
        lambda: {"segments": [{"text": "word0", "start": 0.0, "end": 1.0}]},
    ],
    ids=["v1", "minimal-array", "minimal-object"],
)
def test_archival_timing_is_readable_but_never_a_timing_source(
    on_disk: Path, archival: Callable
) -> None:
    (on_disk.parent / "talk.segments.json").write_text(json.dumps(archival()))
    reading = read_timing(on_disk, owner=OwnerContext(video_id=VIDEO))
    assert reading.status == "archival" and not reading.usable and reading.segments == ()
    assert reading.archival == archival()  # readable history


@pytest.mark.parametrize(
    "raw",
    [b'{"schema_version": 2, "schema_version": 2}', b"{NaN}", b"\xef\xbb\xbf{}", b"[1, 2"],
)
def test_malformed_receipt_json_is_refused(on_disk: Path, raw: bytes) -> None:
    (on_disk.parent / "talk.quality.json").write_bytes(raw)
    (on_disk.parent / "talk.segments.json").write_bytes(raw)
    owner = OwnerContext(video_id=VIDEO)
    assert read_quality(on_disk, owner=owner).status == "invalid"
    assert read_timing(on_disk, owner=owner).status == "invalid"


@pytest.mark.parametrize(
    ("sidecar", "path", "value", "code"),
    [
        ("quality", ("policy", "schema_version"), 1.0, "unsupported_policy_version"),
        ("quality", ("policy", "min_words"), 60.0, "invalid_policy"),
        ("segments", (SEG, 3, "end_seconds"), _DELETE, "invalid_segments"),
    ],
)
def test_integer_and_segment_rules_hold_for_receipts_read_from_disk(
    on_disk: Path, snapshot_tree: Callable, sidecar: str, path: tuple, value: Any, code: str
) -> None:
    receipt = on_disk.parent / f"talk.{sidecar}.json"
    receipt.write_text(json.dumps(_set(json.loads(receipt.read_bytes()), path, value)))
    assert (str(value) in receipt.read_text()) or value is _DELETE  # 1.0 stays a float
    before = snapshot_tree(on_disk.parent)
    owner = OwnerContext(video_id=VIDEO, duration_seconds=120.0)
    reading = (read_quality if sidecar == "quality" else read_timing)(on_disk, owner=owner)
    assert (reading.status, reading.code) == ("invalid", code)
    assert not reading.usable
    assert snapshot_tree(on_disk.parent) == before
