"""Locating a transcript quote: exactly once, in whitespace-normalized text.

A worker quotes the source language; persistence decides where the quote is.
Matching uses the transcript owner's normalization (every run of Unicode
whitespace is one space, ``str.split`` semantics), the same one the timing
receipt's segments are checked against, so a line match and a timed match
are two views of one position. The quote must occur exactly once: a second
occurrence makes the location ambiguous and the citation unverifiable.
Line numbers follow :func:`artifacts.count_lines` (LF-separated, 1-based).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class QuoteMatch:
    start: int  # offset of the first character in the normalized text
    end: int  # offset one past the last character
    line_start: int
    line_end: int


class NormalizedText:
    """The normalized transcript with, per token, its offset and its 1-based line."""

    def __init__(self, text: str) -> None:
        tokens: list[str] = []
        offsets: list[int] = []
        lines: list[int] = []
        position = 0
        for number, line in enumerate(text.split("\n"), start=1):
            for token in line.split():
                if tokens:
                    position += 1  # the single separating space
                tokens.append(token)
                offsets.append(position)
                lines.append(number)
                position += len(token)
        self.text = " ".join(tokens)
        self._offsets = offsets
        self._lines = lines

    def line_at(self, offset: int) -> int:
        """The line of the token holding ``offset`` (a separator belongs to the token before)."""
        index = bisect.bisect_right(self._offsets, offset) - 1
        return self._lines[max(index, 0)]

    def find_once(self, quote: str) -> tuple[QuoteMatch | None, int]:
        """``(match, occurrences)`` with occurrences 0, 1 or 2 (two means "more than one")."""
        needle = " ".join(quote.split())
        if not needle:
            return None, 0
        first = self.text.find(needle)
        if first < 0:
            return None, 0
        if self.text.find(needle, first + 1) >= 0:
            return None, 2
        end = first + len(needle)
        return QuoteMatch(first, end, self.line_at(first), self.line_at(end - 1)), 1


def segment_span(
    segments: Sequence[tuple[str, float, float]], match: QuoteMatch, text: NormalizedText
) -> tuple[float, float] | None:
    """``(start_seconds, end_seconds)`` of the segments covering ``match``.

    ``segments`` are ``(text, start, end)``; their normalized join must equal the
    normalized transcript (the timing receipt guarantees it) or there is no span.
    """
    offsets: list[int] = []
    position = 0
    parts: list[str] = []
    for words, _, _ in segments:
        normalized = " ".join(words.split())
        if not normalized:
            continue
        if parts:
            position += 1
        offsets.append(position)
        parts.append(normalized)
        position += len(normalized)
    timed = [s for s in segments if " ".join(s[0].split())]
    if not timed or " ".join(parts) != text.text:
        return None
    first = bisect.bisect_right(offsets, match.start) - 1
    last = bisect.bisect_right(offsets, match.end - 1) - 1
    return float(timed[first][1]), float(timed[last][2])
