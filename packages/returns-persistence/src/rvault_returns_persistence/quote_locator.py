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
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class QuoteMatch:
    start: int  # offset of the first character in the normalized text
    end: int  # offset one past the last character
    line_start: int
    line_end: int


class NormalizedText:
    """The normalized transcript with, per line that has a token, its offset and 1-based number.

    Built line by line (``" ".join(line.split())``), not token by token: a
    long transcript has ten times more tokens than lines, and every
    validation of a talk builds this once.
    """

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        offsets: list[int] = []
        lines: list[int] = []
        position = 0
        for number, line in enumerate(text.split("\n"), start=1):
            normalized = " ".join(line.split())
            if not normalized:
                continue
            if parts:
                position += 1  # the single separating space
            parts.append(normalized)
            offsets.append(position)
            lines.append(number)
            position += len(normalized)
        self.text = " ".join(parts)
        self._offsets = offsets
        self._lines = lines

    def line_at(self, offset: int) -> int:
        """The line holding ``offset`` (a separator belongs to the line before)."""
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


@dataclass(frozen=True)
class NearMiss:
    """Where a quote found nowhere comes closest, and the first character that differs."""

    line_start: int
    line_end: int
    excerpt: str  # the transcript's normalized text where the quote would be
    index: int  # 0-based position in the normalized quote of the first difference
    quoted: str  # the quote's character there ("" when the quote runs past the text)
    transcript: str  # the transcript's character there ("" past its end)

    def describe(self) -> str:
        """``closest: transcript line 7 ("..."): character 6 of the quote is '’' (U+2019 ...)``."""
        lines = (
            f"line {self.line_start}"
            if self.line_start == self.line_end
            else f"lines {self.line_start}-{self.line_end}"
        )
        return (
            f"closest: transcript {lines} ({self.excerpt!r}): character {self.index + 1} of the "
            f"quote is {_spelled(self.quoted)} where the transcript has "
            f"{_spelled(self.transcript)}"
        )


# A near miss must share at least this much with the transcript to be worth naming.
MIN_SHARED = 8


def near_miss(text: NormalizedText, quote: str) -> NearMiss | None:
    """The closest place to a quote that occurs nowhere, anchored on its longest shared end.

    The longest prefix (or suffix) of the normalized quote that does occur
    fixes where the quote would sit; the first character after it (before
    it) is the difference: a typographic apostrophe, a changed number, a
    dropped word. Matching itself stays exact; this only explains a miss.
    """
    needle = " ".join(quote.split())
    if not needle or needle in text.text:
        return None
    head = _longest(len(needle), lambda k: text.text.find(needle[:k]))
    tail = _longest(len(needle), lambda k: text.text.find(needle[len(needle) - k :]))
    if max(head, tail) < MIN_SHARED:
        return None
    if head >= tail:
        start, index = text.text.find(needle[:head]), head
        at = start + head
    else:
        found = text.text.find(needle[len(needle) - tail :])
        index = len(needle) - tail - 1
        start, at = found - len(needle) + tail, found - 1
    start = max(start, 0)
    end = min(max(start + len(needle), at + 1), len(text.text))
    return NearMiss(
        text.line_at(start),
        text.line_at(max(end - 1, start)),
        text.text[start:end],
        index,
        needle[index] if 0 <= index < len(needle) else "",
        text.text[at] if 0 <= at < len(text.text) else "",
    )


def _longest(limit: int, find: Callable[[int], int]) -> int:
    """The largest ``k <= limit`` with ``find(k) >= 0`` (occurring is monotone in ``k``)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if find(middle) >= 0:
            low = middle
        else:
            high = middle - 1
    return low


def _spelled(character: str) -> str:
    if not character:
        return "nothing (the text ends)"
    name = unicodedata.name(character, "unnamed")
    return f"{character!r} (U+{ord(character):04X} {name})"
