"""Turn provider timings (caption cues, snippets, Whisper segments) into canonical segments.

Caption cues overlap (a cue's end is how long it stays on screen), two
speakers' cues can start at the same instant, a cue can even end before it
starts, and Whisper times are floats with arbitrary precision. The timing
receipt wants one canonical, ordered, non-overlapping, non-degenerate list at
millisecond resolution with single-spaced text. This is the one place that
rule is applied, for every source; the timing schema's description states
it so any reader can recompute it.

The rule (``canonical_pieces``):

1. order the pieces by start time; the input order breaks ties;
2. pieces that start at the same millisecond are one segment: their texts in
   input order, joined by one space, ending at the latest of their ends;
3. a segment ends no later than the next segment starts (overlap is cut at
   the next start);
4. a segment that would then be empty (its end is not after its start: a
   zero-length or inverted cue) runs to the next segment's start; the last
   such segment joins the segment before it, which then ends at its start.
"""

from __future__ import annotations

from collections.abc import Iterable

from rvault_transcript.receipts import Segment
from rvault_transcript.text import collapse_whitespace


class DegenerateTiming(ValueError):
    """Every piece is one instant: no segment can have a positive length."""


def normalize(raw: Iterable[tuple[str, float, float]]) -> list[Segment]:
    """(text, start, end) triples in seconds -> canonical segments; empty texts are dropped."""
    items = []
    for text, start, end in raw:
        clean = collapse_whitespace(text)
        if clean:
            start_ms = max(0, round(start * 1000))
            items.append((start_ms, max(0, round(end * 1000)), clean))
    return from_millis(items)


def transcript_and_segments(
    raw: Iterable[tuple[str, float, float]],
) -> tuple[bytes, list[Segment] | None]:
    """Provider output -> (transcript bytes, canonical segments or None).

    Timing is optional for provider text: when no segment can have a positive
    length the text is still the transcript (in start order) and timing is
    reported unavailable instead.
    """
    items = list(raw)
    try:
        segments = normalize(items)
    except DegenerateTiming:
        ordered = sorted(items, key=lambda item: max(0, round(item[1] * 1000)))
        lines = [collapse_whitespace(text) for text, _, _ in ordered]
        kept = [line for line in lines if line]
        return ("\n".join(kept) + "\n").encode("utf-8"), None
    return (transcript_bytes(segments) if segments else b""), segments


def canonical_pieces(items: Iterable[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """(start_ms, end_ms, text) in any order -> the canonical pieces of the module rule."""
    ordered = sorted(enumerate(items), key=lambda item: (item[1][0], item[0]))
    grouped: list[tuple[int, int, str]] = []
    for _, (start, end, text) in ordered:
        if grouped and grouped[-1][0] == start:
            _, group_end, group_text = grouped[-1]
            grouped[-1] = (start, max(group_end, end), f"{group_text} {text}")
        else:
            grouped.append((start, end, text))
    pieces: list[tuple[int, int, str]] = []
    for index, (start_ms, end_ms, text) in enumerate(grouped):
        if index + 1 < len(grouped):
            next_start = grouped[index + 1][0]
            end_ms = next_start if end_ms <= start_ms else min(end_ms, next_start)
        if end_ms > start_ms:
            pieces.append((start_ms, end_ms, text))
        elif pieces:
            # The last piece is an instant: it joins the one before, which ends at it.
            previous_start, _, previous_text = pieces[-1]
            pieces[-1] = (previous_start, start_ms, f"{previous_text} {text}")
        else:
            raise DegenerateTiming("every cue is zero-length: no segment has a positive duration")
    return pieces


def from_millis(items: Iterable[tuple[int, int, str]]) -> list[Segment]:
    """(start_ms, end_ms, text) -> canonical segments (see the module rule)."""
    return [Segment(text, start / 1000, end / 1000) for start, end, text in canonical_pieces(items)]


def transcript_bytes(segments: Iterable[Segment]) -> bytes:
    """The readable transcript: one segment per line, LF, final newline."""
    return ("\n".join(segment.text for segment in segments) + "\n").encode("utf-8")
