"""When each transcript line starts, read from the transcript owner's timing receipt.

A citation is located by persistence as a line of the transcript; the timing
receipt v2 beside it holds segments whose whitespace-normalized join is the
whitespace-normalized transcript (the owner checks that before calling the
receipt current). So the n-th word of the text is the n-th word of the
segments: a line starts when the segment holding its first word starts, and
a quote was said when the segment holding the quote's first word started.
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


def token_starts(segments: Sequence[TimedText]) -> tuple[float, ...]:
    """Start seconds per word of the transcript (the n-th word is the segments' n-th)."""
    out: list[float] = []
    for segment in segments:
        out.extend([float(segment.start_seconds)] * len(segment.text.split()))
    return tuple(out)


def quote_start(
    lines: Sequence[str], starts: Sequence[float], quote: str, line: int | None
) -> float | None:
    """When the quote's first word was said: the quote is found in the whitespace-
    normalized transcript (from its cited line on, as persistence located it)."""
    needle = " ".join(quote.split())
    if not needle or not starts:
        return None
    offsets: list[int] = []
    first_token = 0
    position = 0
    words: list[str] = []
    for number, text in enumerate(lines, start=1):
        if number == line:
            first_token = len(words)
        for word in text.split():
            offsets.append(position)
            words.append(word)
            position += len(word) + 1
    haystack = " ".join(words)
    found = haystack.find(needle, offsets[first_token] if first_token < len(offsets) else 0)
    if found < 0:
        return None
    token = bisect.bisect_right(offsets, found) - 1
    return starts[token] if token < len(starts) else None
