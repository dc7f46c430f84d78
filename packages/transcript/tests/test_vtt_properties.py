"""Property: any cue list the parser accepts yields segments a timing receipt v2 accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_contracts.canonical import sha256_bytes
from rvault_transcript.receipts import build_timing_receipt, validate_timing
from rvault_transcript.segments import normalize, transcript_and_segments, transcript_bytes
from rvault_transcript.text import collapse_whitespace
from rvault_transcript.vtt import VttError, clean_line, vtt_to_segments

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
    try:
        segments = vtt_to_segments(raw)
    except VttError as error:
        # Only when every cue left after de-duplication is the same instant.
        assert error.code == "degenerate_timing"
        ordered = sorted(enumerate(cues), key=lambda item: (item[1][0], item[0]))
        kept, previous = [], None
        for _, (start, length, lines) in ordered:
            clean = [clean_line(line) for line in lines]
            if previous is None or any(line not in previous for line in clean):
                kept.append((start, length))
            previous = clean
        assert len({start for start, _ in kept}) == 1 and all(n == 0 for _, n in kept)
        return
    assert all(s.end_seconds > s.start_seconds for s in segments)
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
    triples = [(text, start, start + length) for text, start, length in raw]
    if len({round(start * 1000) for _, start, _ in triples}) == 1 and all(
        round(end * 1000) <= round(start * 1000) for _, start, end in triples
    ):
        data, none = transcript_and_segments(triples)
        assert none is None and data.decode().split() == " ".join(t for t, _, _ in triples).split()
        return
    segments = normalize(triples)
    assert all(s.end_seconds > s.start_seconds for s in segments)
    data = transcript_bytes(segments)
    provenance = {"kind": "youtube_captions", "video_id": "dQw4w9WgXcQ", "duration_seconds": 5031.0}
    build_timing_receipt(data, "captions", provenance, segments)
    # One flipped byte (CRLF) invalidates the hash binding.
    assert sha256_bytes(data.replace(b"\n", b"\r\n")) != sha256_bytes(data)
