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

from rvault_contracts.errors import Refusal

from rvault_transcript.receipts import Segment
from rvault_transcript.segments import DegenerateTiming, from_millis
from rvault_transcript.text import collapse_whitespace

# WebVTT writes ``[hh:]mm:ss.ttt``. Real files also use one-digit fields
# (``0:0:3.540``, Microsoft Teams), one or two fraction digits (``7.23`` is
# 7.230 s) and SRT's comma; all are read as the time they spell.
_TIMESTAMP = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})"
_TIMING_LINE = re.compile(rf"^[ \t]*{_TIMESTAMP}[ \t]+-->[ \t]+{_TIMESTAMP}(?:[ \t].*)?$")
# ``[^<>]`` keeps the scan linear: with ``[^>]`` every unclosed ``<`` rescanned the
# rest of the line (a line of 200 000 ``<`` took half a minute).
_TAG = re.compile(r"<[^<>]*>")
# Cue times far beyond any recording (and any float's millisecond precision)
# are refused rather than converted: 10 000 hours is more than a year of audio.
MAX_TIMESTAMP_HOURS = 9999
_BLOCK_KEYWORDS = ("NOTE", "STYLE", "REGION")


class VttError(Refusal):
    """A file that is not WebVTT or has no usable cue; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


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
    if int(minutes or 0) > 59 or int(seconds or 0) > 59:
        raise VttError("invalid_timestamp", "a cue timestamp has minutes or seconds above 59")
    fraction = int((millis or "0").ljust(3, "0"))
    return ((int(hours or 0) * 60 + int(minutes or 0)) * 60 + int(seconds or 0)) * 1000 + fraction


def clean_line(raw: str) -> str:
    """Cue payload text without tags, entities or layout whitespace."""
    return collapse_whitespace(
        html.unescape(_TAG.sub("", raw)).replace("\u200e", "").replace("\u200f", "")
    )


def _is_block_keyword(line: str) -> bool:
    """``NOTE``, ``STYLE`` or ``REGION`` alone or followed by a space or tab."""
    word = re.split(r"[ \t]", line, maxsplit=1)[0]
    return word in _BLOCK_KEYWORDS


def parse_cues(text: str) -> list[Cue]:
    """Cues in file order; the header and NOTE, STYLE and REGION blocks are skipped.

    A line that is a timing line always starts a new cue, as in the WebVTT
    parsing algorithm: real yt-dlp output runs a cue straight into the next
    timing line without a blank line, and malformed files repeat a timing
    line inside a cue. A timing line is therefore never transcript text.
    A line of spaces is not a blank line (YouTube writes one as the empty
    first line of a rolling caption), so it does not end a block.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or not re.match(r"^WEBVTT(?:[ \t].*)?$", lines[0]):
        raise VttError("not_webvtt", "the file does not start with the WEBVTT signature")
    cues: list[Cue] = []
    total = len(lines)
    index = 1
    # The header runs to the first blank line, or to a timing line.
    while index < total and lines[index] and not _TIMING_LINE.match(lines[index]):
        index += 1
    timing: re.Match[str] | None = None
    payload: list[str] = []

    def close() -> None:
        if timing is None:
            return
        start_ms = _millis(timing.groups()[:4])
        end_ms = _millis(timing.groups()[4:])
        kept = tuple(line for line in (clean_line(raw) for raw in payload) if line)
        if kept:
            cues.append(Cue(start_ms, end_ms, kept))

    block_start = True
    skipping = False
    while index < total:
        line = lines[index]
        index += 1
        if not line:
            close()
            timing, payload, block_start, skipping = None, [], True, False
            continue
        match = _TIMING_LINE.match(line)
        if match is not None:
            close()
            timing, payload, block_start, skipping = match, [], False, False
            continue
        if block_start:
            block_start = False
            if _is_block_keyword(line.strip()):
                skipping = True
                continue
            # A cue identifier, or stray text before any timing line: not spoken text.
            continue
        if timing is not None and not skipping:
            payload.append(line)
    close()
    return cues


def cues_to_segments(cues: list[Cue]) -> list[Segment]:
    """Deduplicated canonical segments (:mod:`rvault_transcript.segments` rule).

    Rolling captions (YouTube auto captions) repeat the previous cue's line
    above the new one. A line is dropped only when it exactly equals a line
    of the previous cue in time order: that text is already on screen and
    already in the transcript. A line is never cut down to a suffix, so
    ``No.`` followed by ``No. Not yet.`` keeps all four spoken words.
    """
    ordered = sorted(enumerate(cues), key=lambda item: (item[1].start_ms, item[0]))
    pieces: list[tuple[int, int, str]] = []
    previous_lines: tuple[str, ...] = ()
    for _, cue in ordered:
        fresh = [line for line in cue.lines if line not in previous_lines]
        previous_lines = cue.lines
        if fresh:
            pieces.append((cue.start_ms, cue.end_ms, " ".join(fresh)))
    try:
        return from_millis(pieces)
    except DegenerateTiming as error:
        raise VttError("degenerate_timing", str(error)) from None


def vtt_to_segments(data: str) -> list[Segment]:
    cues = parse_cues(data)
    if not cues:
        raise VttError("no_cues", "the WebVTT file has no cue with text")
    return cues_to_segments(cues)
