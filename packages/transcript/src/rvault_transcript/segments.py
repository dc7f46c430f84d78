"""Turn provider timings (caption snippets, Whisper segments) into canonical segments.

Caption snippets overlap (a snippet's duration is how long it stays on
screen) and Whisper times are floats with arbitrary precision; the timing
receipt wants ordered, non-overlapping segments at millisecond resolution
with single-spaced text. This is the one place that normalization happens.
"""

from __future__ import annotations

from collections.abc import Iterable

from rvault_transcript.receipts import Segment
from rvault_transcript.text import collapse_whitespace


def normalize(raw: Iterable[tuple[str, float, float]]) -> list[Segment]:
    """(text, start, end) triples -> canonical segments; empty texts are dropped."""
    items = []
    for text, start, end in raw:
        clean = collapse_whitespace(text)
        if clean:
            start_ms = max(0, round(start * 1000))
            end_ms = max(start_ms, round(end * 1000))
            items.append((start_ms, end_ms, clean))
    items.sort(key=lambda item: item[0])
    return from_millis(items)


def from_millis(items: list[tuple[int, int, str]]) -> list[Segment]:
    """Start-ordered (start_ms, end_ms, text) -> segments that never overlap.

    A segment starts no earlier than the previous one ends and ends no later
    than the next one starts.
    """
    segments: list[Segment] = []
    previous_end = 0
    for index, (start_ms, end_ms, text) in enumerate(items):
        start = max(start_ms, previous_end)
        end = end_ms
        if index + 1 < len(items):
            end = min(end, max(start, items[index + 1][0]))
        end = max(end, start)
        segments.append(Segment(text, start / 1000, end / 1000))
        previous_end = end
    return segments


def transcript_bytes(segments: Iterable[Segment]) -> bytes:
    """The readable transcript: one segment per line, LF, final newline."""
    return ("\n".join(segment.text for segment in segments) + "\n").encode("utf-8")
