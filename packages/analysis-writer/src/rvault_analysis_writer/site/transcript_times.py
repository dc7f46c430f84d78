"""When each transcript line starts, read from the transcript owner's timing receipt.

A citation is located by persistence as a line of the transcript; the timing
receipt v2 beside it holds segments whose whitespace-normalized join is the
whitespace-normalized transcript (the owner checks that before calling the
receipt current). So the n-th word of the text is the n-th word of the
segments, and a line starts when the segment holding its first word starts.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Protocol


class TimedText(Protocol):
    text: str
    start_seconds: float


def line_starts(text: str, segments: Sequence[TimedText]) -> tuple[float | None, ...]:
    """Start seconds per line (1-based line n at index n-1); ``None`` for a blank line."""
    first_word: list[int] = []
    starts: list[float] = []
    count = 0
    for segment in segments:
        words = len(segment.text.split())
        if words:
            first_word.append(count)
            starts.append(float(segment.start_seconds))
            count += words
    out: list[float | None] = []
    position = 0
    for line in text.split("\n"):
        words = len(line.split())
        if not words or position >= count:
            out.append(None)
        else:
            out.append(starts[bisect.bisect_right(first_word, position) - 1])
        position += words
    return tuple(out)
