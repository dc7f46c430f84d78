"""The languages of a transcript's text, read by lingua; the claims a WebVTT file makes.

lingua (``lingua-language-detector``: offline, its models ship in the wheel)
classifies the text in windows of consecutive lines of about 40 words; each
window counts for its most confident language with its characters, so
mixed text gets each language's share
(:class:`~rvault_transcript.language.Detection`). Used by the VTT import
(against the file's ``Language:`` header and ``*.xx.vtt`` name), for caption
tracks (against the track's code) and for existing transcripts.

Most of a VTT import's time is lingua's, so it uses every core without
changing what lingua computes: for Latin text the trigram models of every
Latin-script language (the ones lingua's rules load for such a text, one by
one, on the first window) are loaded first by lingua's own parallel preload,
and the windows are then classified by
``compute_language_confidence_values_in_parallel``, which runs the same
per-window computation on lingua's thread pool and returns the rankings in
window order. lingua holds the GIL throughout, so a Python thread could not
overlap it with other work.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

from rvault_transcript.language import (
    ALIASES,
    LANGUAGE_TAG,
    TEXT_DETECTOR,
    Claim,
    Detection,
    language_record,
    resolve_language,
    shares_from,
)

# lingua classifies a window of at least this many non-space characters (about
# 40 words); shorter windows are unreliable and lines are joined until then.
WINDOW_CHARS = 200
# Below this many characters in all the text is too short to say anything.
MIN_TEXT_CHARS = 60
# A window whose best language has less confidence than this is not counted.
MIN_CONFIDENCE = 0.5
# For a window of Latin letters lingua's rules keep all 49 Latin-script
# languages, and load their trigram models one by one (0.3 CPU s), unless most
# of its words carry letters only a few languages use: then only those few
# are loaded (Czech, Turkish, Vietnamese captions: 44-94 % of their words
# have a non-ASCII letter). The models are preloaded in parallel only below
# this share, looked for in this many windows spread over the text (French
# 23 %, Swedish 18 %, Spanish and Portuguese 8-12 %, German 7-9 %, English 0;
# Polish, Romanian and Hungarian, 38-50 %, load every model too, but are left
# to the rules). Other scripts have a few models each (a Russian text's: 0.07 CPU s).
PRELOAD_MAX_NON_ASCII_WORDS = 0.25
PRELOAD_SAMPLE_WINDOWS = 16

_HEADER = re.compile(r"^Language:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_NAME = re.compile(r"\.([A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)\.vtt$", re.IGNORECASE)


def vtt_claims(text: str, file_name: str) -> list[Claim]:
    """The ``Language:`` header of the WebVTT header block and a ``.xx.vtt`` file name."""
    claims = []
    header = _HEADER.search(text.split("\n\n", 1)[0])
    if header and LANGUAGE_TAG.match(header.group(1)):
        claims.append(Claim(header.group(1), "vtt_header"))
    name = _NAME.search(file_name)
    if name and _plausible_code(name.group(1)):
        claims.append(Claim(name.group(1), "vtt_file_name"))
    return claims


def _plausible_code(tag: str) -> bool:
    """Two letters, or a three-letter code the detector knows (``talk.old.vtt`` names none)."""
    primary = tag.split("-", 1)[0].lower()
    return len(primary) == 2 or primary in ALIASES or primary in _three_letter_codes()


@lru_cache(maxsize=1)
def _three_letter_codes() -> frozenset[str]:
    from lingua import Language

    return frozenset(language.iso_code_639_3.name.lower() for language in Language.all())


@lru_cache(maxsize=1)
def _detector() -> Any:
    """All of lingua's languages in low-accuracy mode: trigram models only, loaded lazily.

    Windows are longer than the 120 characters below which the high-accuracy
    mode would load 1- to 5-gram models of every language (about 0.9 GB).
    """
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()


def visible_chars(text: str) -> int:
    """How many characters of ``text`` are not whitespace (``str.isspace``).

    ``str.split()`` splits on exactly the characters ``str.isspace`` names, so
    this counts in C what a per-character loop counted in Python.
    """
    return len("".join(text.split()))


def text_windows(lines: Iterable[str]) -> list[str]:
    """Consecutive lines joined into windows of at least WINDOW_CHARS non-space characters."""
    windows: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        current.append(line)
        size += visible_chars(line)
        if size >= WINDOW_CHARS:
            windows.append(" ".join(current))
            current, size = [], 0
    if current:
        if windows and size < WINDOW_CHARS:
            windows[-1] = windows[-1] + " " + " ".join(current)
        else:
            windows.append(" ".join(current))
    return windows


def loads_every_latin_model(windows: Sequence[str]) -> bool:
    """Whether the sampled windows are Latin text lingua loads every Latin-script model for."""
    step = max(1, len(windows) // PRELOAD_SAMPLE_WINDOWS)
    lettered = [word for word in " ".join(windows[::step]).split() if any(map(str.isalpha, word))]
    marked = sum(1 for word in lettered if any(ch.isalpha() and not ch.isascii() for ch in word))
    return bool(lettered) and marked < PRELOAD_MAX_NON_ASCII_WORDS * len(lettered)


@cache
def _preload_latin_models() -> None:
    """Load the trigram models of every Latin-script language, on every core.

    lingua keeps its models in process-wide maps shared by all detectors, so
    the all-languages detector finds them loaded; a model a window needs and
    this did not load is still loaded on first use, so what is computed never
    depends on it (only the time: the detector's rules load the same models
    for such a text, one by one, on its first window, for the same CPU).
    """
    from lingua import Language, LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_languages(*Language.all_with_latin_script())
    builder.with_low_accuracy_mode().with_preloaded_language_models().build()


_parallel_pid: int | None = None


def _rankings(windows: list[str]) -> list[Any]:
    """lingua's confidence ranking of each window, in order, on its thread pool.

    Latin text has its models preloaded in parallel; other text has its first
    window classified alone, which loads the models it needs. A forked child
    of a process that already started the pool has no pool threads (they are
    not forked), so there the windows are classified one by one.
    """
    global _parallel_pid
    detector = _detector()
    if _parallel_pid not in (None, os.getpid()):
        return [detector.compute_language_confidence_values(window) for window in windows]
    _parallel_pid = os.getpid()
    first: list[Any] = []
    if loads_every_latin_model(windows):
        _preload_latin_models()
    elif windows:
        # The first window loads the models the rules pick for this text one by
        # one; on the pool, both threads would load each of them at once.
        first.append(detector.compute_language_confidence_values(windows[0]))
    rest = detector.compute_language_confidence_values_in_parallel(windows[len(first) :])
    return first + list(rest)


def detect_text_languages(lines: Iterable[str]) -> Detection | None:
    """Each window's most confident language, weighted by its characters; None when undecided."""
    windows = text_windows(lines)
    sizes = [visible_chars(window) for window in windows]
    if sum(sizes) < MIN_TEXT_CHARS:
        return None
    weights = []
    for size, ranked in zip(sizes, _rankings(windows), strict=True):
        if ranked and ranked[0].value >= MIN_CONFIDENCE:
            code = ranked[0].language.iso_code_639_1.name.lower()
            weights.append((code, float(size)))
    return shares_from(weights, TEXT_DETECTOR)


def existing_text_record(text: str) -> dict[str, Any]:
    """An existing transcript: no source says its language (null), the text is classified."""
    return language_record(None, [], detect_text_languages(text.splitlines()))


def caption_track_record(track_language: str, lines: Sequence[str]) -> dict[str, Any]:
    """A caption track's own code, checked against its text (:class:`LanguageMismatch`)."""
    claim = Claim(track_language, "caption_track")
    detection = detect_text_languages(lines)
    language = resolve_language([claim], detection)
    return language_record(language, [claim], detection)
