"""WebVTT to clean transcript segments.

Real caption files are not the clean examples of the specification: YouTube
auto captions roll (every cue repeats the previous line and adds a new one,
with inline ``<00:00:01.500><c>`` word timestamps and 10 ms "hold" cues),
other tools add styling (``<v Speaker>``, ``<i>``, ``<c.yellow>``), cue
settings (``align:start position:0%``), ``NOTE``/``STYLE``/``REGION`` blocks,
cue identifiers and HTML entities. The parser keeps only what was spoken,
each line once, at millisecond resolution, so the result satisfies the
timing receipt's canonical segment rules.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from rvault_transcript.receipts import Segment
from rvault_transcript.segments import from_millis
from rvault_transcript.text import collapse_whitespace

_TIMESTAMP = r"(?:(\d+):)?([0-5]\d):([0-5]\d)[.,](\d{3})"
_TIMING_LINE = re.compile(rf"^\s*{_TIMESTAMP}\s+-->\s+{_TIMESTAMP}(?:\s+.*)?$")
# ``[^<>]`` keeps the scan linear: with ``[^>]`` every unclosed ``<`` rescanned the
# rest of the line (a line of 200 000 ``<`` took half a minute).
_TAG = re.compile(r"<[^<>]*>")
# Cue times far beyond any recording (and any float's millisecond precision)
# are refused rather than converted: 10 000 hours is more than a year of audio.
MAX_TIMESTAMP_HOURS = 9999
_BLOCK_KEYWORDS = ("NOTE", "STYLE", "REGION")


class VttError(Exception):
    """A file that is not WebVTT or has no usable cue; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Cue:
    start_ms: int
    end_ms: int
    lines: tuple[str, ...]


def _millis(groups: tuple[str | None, ...]) -> int:
    hours, minutes, seconds, millis = groups
    if hours is not None and (len(hours) > 6 or int(hours) > MAX_TIMESTAMP_HOURS):
        raise VttError(
            "timestamp_out_of_range",
            f"a cue timestamp exceeds {MAX_TIMESTAMP_HOURS} hours",
        )
    return ((int(hours or 0) * 60 + int(minutes or 0)) * 60 + int(seconds or 0)) * 1000 + int(
        millis or 0
    )


def clean_line(raw: str) -> str:
    """Cue payload text without tags, entities or layout whitespace."""
    return collapse_whitespace(
        html.unescape(_TAG.sub("", raw)).replace("\u200e", "").replace("\u200f", "")
    )


def parse_cues(text: str) -> list[Cue]:
    """Cues in file order; header, NOTE, STYLE and REGION blocks are skipped."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or not re.match(r"^WEBVTT(?:[ \t].*)?$", lines[0]):
        raise VttError("not_webvtt", "the file does not start with the WEBVTT signature")
    cues: list[Cue] = []
    index = 1
    # Blocks are separated by empty lines; a line of spaces belongs to its cue
    # (YouTube writes one as the empty first line of a rolling caption).
    while index < len(lines) and lines[index]:
        index += 1
    total = len(lines)
    while index < total:
        while index < total and not lines[index].strip():
            index += 1
        if index >= total:
            break
        block_start = index
        while index < total and lines[index]:
            index += 1
        block = lines[block_start:index]
        first = block[0].strip()
        if first.split(" ", 1)[0].split("\t", 1)[0] in _BLOCK_KEYWORDS and "-->" not in first:
            continue
        timing_at = 0 if "-->" in block[0] else 1
        if timing_at >= len(block):
            continue
        match = _TIMING_LINE.match(block[timing_at])
        if match is None:
            continue
        start_ms = _millis(match.groups()[:4])
        end_ms = _millis(match.groups()[4:])
        payload = tuple(
            line for line in (clean_line(raw) for raw in block[timing_at + 1 :]) if line
        )
        if payload:
            cues.append(Cue(start_ms, max(start_ms, end_ms), payload))
    return cues


def _new_text(line: str, previous_lines: tuple[str, ...], last_emitted: str) -> str:
    if line in previous_lines or line == last_emitted:
        return ""
    if last_emitted and line.startswith(last_emitted + " "):
        # A growing caption line: only the words added since the last cue are new.
        return line[len(last_emitted) + 1 :]
    return line


def cues_to_segments(cues: list[Cue]) -> list[Segment]:
    """Deduplicated, ordered, non-overlapping segments at millisecond resolution."""
    ordered = sorted(enumerate(cues), key=lambda item: (item[1].start_ms, item[0]))
    pieces: list[tuple[int, int, str]] = []
    previous_lines: tuple[str, ...] = ()
    last_emitted = ""
    for _, cue in ordered:
        fresh: list[str] = []
        for line in cue.lines:
            new = _new_text(line, previous_lines, last_emitted)
            if new:
                fresh.append(new)
                last_emitted = line
        previous_lines = cue.lines
        if fresh:
            pieces.append((cue.start_ms, cue.end_ms, " ".join(fresh)))
    return from_millis(pieces)


def vtt_to_segments(data: str) -> list[Segment]:
    cues = parse_cues(data)
    if not cues:
        raise VttError("no_cues", "the WebVTT file has no cue with text")
    return cues_to_segments(cues)
