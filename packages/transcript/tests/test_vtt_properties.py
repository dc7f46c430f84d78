"""Property: any cue list the parser accepts yields segments a timing receipt v2 accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts.canonical import sha256_bytes
from rvault_transcript.receipts import build_timing_receipt, validate_timing
from rvault_transcript.segments import normalize, transcript_bytes
from rvault_transcript.text import collapse_whitespace
from rvault_transcript.vtt import vtt_to_segments

WORD = st.sampled_from(
    ["so", "we", "talk", "about", "style", "&amp;", "<i>it</i>", "naïve", "日本"]
)
LINE = st.lists(WORD, min_size=1, max_size=6).map(" ".join)
CUE = st.tuples(
    st.integers(0, 10_000_000), st.integers(0, 20_000), st.lists(LINE, min_size=1, max_size=3)
)


def stamp(ms: int) -> str:
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


@settings(max_examples=150, deadline=None)
@given(st.lists(CUE, min_size=1, max_size=25))
def test_parsed_segments_always_make_a_valid_receipt(
    cues: list[tuple[int, int, list[str]]],
) -> None:
    blocks = [
        f"{stamp(start)} --> {stamp(start + length)}\n" + "\n".join(lines)
        for start, length, lines in cues
    ]
    raw = "WEBVTT\n\n" + "\n\n".join(blocks) + "\n"
    segments = vtt_to_segments(raw)
    data = transcript_bytes(segments)
    provenance = {
        "kind": "vtt_artifact",
        "artifact_path": "a.vtt",
        "artifact_sha256": sha256_bytes(raw.encode()),
        "cue_extent_seconds": segments[-1].end_seconds,
    }
    receipt = build_timing_receipt(data, "vtt", provenance, segments)
    assert validate_timing(receipt, data).segments == tuple(segments)
    assert collapse_whitespace(data.decode()) == " ".join(s.text for s in segments)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(LINE, st.floats(0, 5000, allow_nan=False), st.floats(0, 30, allow_nan=False)),
        min_size=1,
        max_size=30,
    )
)
def test_provider_timings_normalize_to_canonical_segments(
    raw: list[tuple[str, float, float]],
) -> None:
    segments = normalize((text, start, start + length) for text, start, length in raw)
    data = transcript_bytes(segments)
    provenance = {"kind": "youtube_captions", "video_id": "dQw4w9WgXcQ", "duration_seconds": 5031.0}
    build_timing_receipt(data, "captions", provenance, segments)
    # One flipped byte (CRLF) invalidates the hash binding.
    assert sha256_bytes(data.replace(b"\n", b"\r\n")) != sha256_bytes(data)
