"""Transcript text rules shared by every writer and reader.

A transcript on disk is not proof of a transcript: corpora have held empty
files, Python tracebacks and stubs. These functions decide what counts as
text (strict UTF-8, no replacement decoding), how words are counted and how
two texts are compared "modulo Unicode whitespace layout". They are pure and
light so that consumers can import them through :mod:`rvault_transcript.api`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from operator import eq

from rvault_contracts.errors import Refusal

# Lines that only a traceback or an error dump produces. ``[^\S\n]*`` rather
# than ``\s*``: the same matches (``^`` only follows ``\n``), but a run of blank
# lines is no longer rescanned from every line start (quadratic time).
_TRACEBACK_PATTERNS = (
    re.compile(r"^Traceback \(most recent call last\):", re.MULTILINE),
    re.compile(r'^[^\S\n]*File "[^"]+", line \d+', re.MULTILINE),
    re.compile(
        r"^[^\S\n]*[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)(: .*)?$",
        re.MULTILINE,
    ),
)

# Whole-text stubs that tools and people leave behind instead of a transcript.
_STUB_PATTERNS = (
    re.compile(
        r"^\W*(todo|tbd|placeholder"
        r"|transcript (not available|unavailable|pending|goes here|missing)"
        r"|no transcript( available)?|lorem ipsum|n/?a|none|null|error|failed|coming soon)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\blorem ipsum dolor sit amet\b", re.IGNORECASE),
)


class TextRefusal(Refusal):
    """A transcript text refused with a stable code (``invalid_utf8``, ``empty_text``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


def decode_utf8(data: bytes) -> str:
    """Strict UTF-8 decoding; readers never hash or judge replacement-decoded text."""
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise TextRefusal(
            "invalid_utf8", f"invalid UTF-8 at byte {exc.start}: {exc.reason}"
        ) from None


def collapse_whitespace(text: str) -> str:
    """The text with every run of Unicode whitespace replaced by one space, trimmed."""
    return " ".join(text.split())


def words(text: str) -> list[str]:
    """The policy's words: whitespace-separated tokens with at least one letter or digit.

    This is the word rule the quality schema states; writer and reader both
    count with it. Punctuation never splits a token: ``state-of-the-art``,
    ``don't``, ``3.5`` and ``[Music]`` are one word each, a lone ``-``,
    ``—``, ``...`` or ``'`` is none.
    """
    return [token for token in text.split() if any(map(str.isalnum, token))]


def word_count(text: str) -> int:
    return len(words(text))


def equal_modulo_whitespace(left: str, right: str) -> bool:
    """Same characters in the same order; only Unicode whitespace layout may differ."""
    return collapse_whitespace(left) == collapse_whitespace(right)


def looks_like_traceback(text: str) -> bool:
    if _TRACEBACK_PATTERNS[0].search(text):
        return True
    # A file/line frame together with an exception line is a traceback fragment.
    return bool(_TRACEBACK_PATTERNS[1].search(text) and _TRACEBACK_PATTERNS[2].search(text))


def looks_like_stub(text: str) -> bool:
    collapsed = collapse_whitespace(text)
    if len(collapsed) > 400:
        # A stub is short; long text starting with "TODO" is still judged by the word floor.
        return bool(_STUB_PATTERNS[1].search(collapsed))
    return any(pattern.search(collapsed) for pattern in _STUB_PATTERNS)


def low_diversity(text: str) -> bool:
    """Repeated filler (one token over and over) is not a transcript either."""
    tokens = [t.lower() for t in words(text)]
    if len(tokens) < 50:
        return False
    return len(set(tokens)) * 20 < len(tokens)


# Whisper's decoder can fall into a loop and emit one word or phrase until the
# 30-second window ends (``tzufafin, tzufafin, ...``). Human speech repeats a
# word three or four times, not eight. faster-whisper itself re-decodes a
# window whose zlib compression ratio exceeds 2.4; ordinary speech measures
# 1.5-1.9 over 100 words (benchmarks/speech_text.txt, a 5,800-word subtitle
# file), a loop 4-12.
LOOP_MAX_UNIT_WORDS = 10
LOOP_MIN_REPEATS = 8
LOOP_MIN_SINGLE_WORD_REPEATS = 10
LOOP_WINDOW_WORDS = 100
# Below 20 words a few repeated words already compress well ("very very very
# ... good"); loops that short are caught by the repetition rule.
LOOP_MIN_WINDOW_WORDS = 20
LOOP_COMPRESSION_RATIO = 2.4
# ...and only when the window's vocabulary is that of a loop: an enumeration
# (``item1 item2 item3 ...``) compresses well too, but its words all differ.
LOOP_MAX_DISTINCT_SHARE = 0.5


# Everything but letters, digits and whitespace: removing it inside tokens
# turns each word into its comparison key in one pass (non-words vanish).
_NOT_KEY = re.compile(r"[^\w\s]|_")


def loop_keys(text: str) -> list[str]:
    """The words of ``text`` compared for repetition: case-folded letters and digits.

    One key per :func:`words` token, in order (a token without a letter or
    digit is no word and has no key).
    """
    return _NOT_KEY.sub("", text.casefold()).split()


def _longest_run(flags: Iterable[bool]) -> int:
    """Length of the longest run of True (groupby walks the flags in C)."""
    return max((sum(1 for _ in group) for value, group in groupby(flags) if value), default=0)


def _repeated_unit(tokens: list[str]) -> tuple[int, int] | None:
    """(unit length, repeats) of the longest back-to-back repetition over the limits.

    ``tokens[i] == tokens[i + size]`` for ``run`` positions in a row means the
    unit of ``size`` words repeats ``run // size + 1`` times.
    """
    for size in range(1, LOOP_MAX_UNIT_WORDS + 1):
        needed = LOOP_MIN_SINGLE_WORD_REPEATS if size == 1 else LOOP_MIN_REPEATS
        best = _longest_run(map(eq, tokens, tokens[size:]))
        if best // size + 1 >= needed:
            return size, best // size + 1
    return None


def compression_ratio(text: str) -> float:
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data, 9)) if data else 0.0


def decoder_loop(text: str) -> str | None:
    """Why ``text`` looks like a decoder loop, or None.

    Each line is a segment (one per line is how every writer here stores a
    transcript); repetition is looked for across the whole text, compression
    per line over its words (a separator line of dashes is no speech) in
    windows of at most 100 words, so a long one-line manual transcript is
    judged like many short segments.
    """
    found = _repeated_unit(loop_keys(text))
    if found is not None:
        size, repeats = found
        return f"a {size}-word unit repeats {repeats} times in a row"
    for line in text.splitlines():
        tokens = words(line)
        if len(tokens) < LOOP_MIN_WINDOW_WORDS:
            continue
        keys = loop_keys(line)
        for start in range(0, len(tokens), LOOP_WINDOW_WORDS):
            window = tokens[start : start + LOOP_WINDOW_WORDS]
            if len(window) < LOOP_MIN_WINDOW_WORDS:
                continue
            ratio = compression_ratio(" ".join(window))
            distinct = len(set(keys[start : start + LOOP_WINDOW_WORDS])) / len(window)
            if ratio > LOOP_COMPRESSION_RATIO and distinct <= LOOP_MAX_DISTINCT_SHARE:
                return (
                    f"a segment compresses {ratio:.1f}:1 (loop threshold {LOOP_COMPRESSION_RATIO})"
                )
    return None


@dataclass(frozen=True)
class TextVerdict:
    text: str
    word_count: int


@lru_cache(maxsize=1)
def judge_text(text: str, min_words: int) -> TextVerdict:
    """Apply the content rules and the word floor; raise :class:`TextRefusal` on failure.

    The verdict is a pure function of ``(text, min_words)`` and the last one
    is kept: a writer judges the text, then the quality receipt's strict
    builder re-validates the receipt it built, judging the same text again
    (on a two-hour transcript the decoder-loop and diversity rules cost tens
    of milliseconds). A refusal is never cached; it is raised each time.
    """
    if not text.strip():
        raise TextRefusal("empty_text", "the transcript is empty or whitespace only")
    if "\ufffd" in text:
        raise TextRefusal(
            "replacement_characters", "the transcript contains U+FFFD replacement characters"
        )
    if looks_like_traceback(text):
        raise TextRefusal("traceback_text", "the transcript looks like a Python traceback")
    if looks_like_stub(text):
        raise TextRefusal("stub_text", "the transcript looks like a stub or placeholder")
    if low_diversity(text):
        raise TextRefusal("repetitive_text", "the transcript repeats a handful of tokens")
    loop = decoder_loop(text)
    if loop is not None:
        raise TextRefusal("decoder_loop", f"the transcript looks like a decoder loop: {loop}")
    count = word_count(text)
    if count < min_words:
        raise TextRefusal(
            "too_few_words",
            f"the transcript has {count} words, fewer than the floor of {min_words}",
        )
    return TextVerdict(text, count)
