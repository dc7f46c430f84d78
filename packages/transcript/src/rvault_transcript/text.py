"""Transcript text rules shared by every writer and reader.

A transcript on disk is not proof of a transcript: corpora have held empty
files, Python tracebacks and stubs. These functions decide what counts as
text (strict UTF-8, no replacement decoding), how words are counted and how
two texts are compared "modulo Unicode whitespace layout". They are pure and
light so that consumers can import them through :mod:`rvault_transcript.api`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


class TextRefusal(Exception):
    """A transcript text refused with a stable code (``invalid_utf8``, ``empty_text``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


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
    """Whitespace-separated tokens that contain at least one letter or digit."""
    return [token for token in text.split() if any(ch.isalnum() for ch in token)]


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


@dataclass(frozen=True)
class TextVerdict:
    text: str
    word_count: int


def judge_text(text: str, min_words: int) -> TextVerdict:
    """Apply the content rules and the word floor; raise :class:`TextRefusal` on failure."""
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
    count = word_count(text)
    if count < min_words:
        raise TextRefusal(
            "too_few_words",
            f"the transcript has {count} words, fewer than the floor of {min_words}",
        )
    return TextVerdict(text, count)
