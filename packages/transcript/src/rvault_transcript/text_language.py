"""The languages of a transcript's text, read by lingua; the claims a WebVTT file makes.

lingua (``lingua-language-detector``: offline, its models ship in the wheel)
classifies the text in windows of consecutive lines of about 40 words; each
window counts for its most confident language with its characters, so
mixed text gets each language's share
(:class:`~rvault_transcript.language.Detection`). Used by the VTT import
(against the file's ``Language:`` header and ``*.xx.vtt`` name), for caption
tracks (against the track's code) and for existing transcripts.

Most of a VTT import's time is lingua's, so it uses every core without
changing what lingua computes: the trigram models of the text's script (the
ones lingua's rules load for such a text, one by one, on the first window)
are loaded first by lingua's own parallel preload, and the windows are then
classified by ``compute_language_confidence_values_in_parallel``, which runs
the same per-window computation on lingua's thread pool and returns the
rankings in window order. lingua holds the GIL throughout, so a Python
thread could not overlap it with other work.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
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
# The scripts of which lingua has several languages (so its rules load their
# trigram models rather than naming the language from the alphabet), as the
# first word of their letters' Unicode names; and how many windows, spread
# over the text, are looked at to tell which of them a text is written in.
PRELOADED_SCRIPTS = ("LATIN", "CYRILLIC", "ARABIC", "DEVANAGARI")
SCRIPT_SAMPLE_WINDOWS = 16

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


def window_scripts(windows: Sequence[str]) -> set[str]:
    """The :data:`PRELOADED_SCRIPTS` that have the most letters of some sampled window."""
    step = max(1, len(windows) // SCRIPT_SAMPLE_WINDOWS)
    scripts = set()
    for window in windows[::step]:
        counts = Counter(
            unicodedata.name(ch, "?").split(" ", 1)[0] for ch in window if ch.isalpha()
        )
        if counts:
            scripts.add(counts.most_common(1)[0][0])
    return scripts.intersection(PRELOADED_SCRIPTS)


@cache
def _preload(script: str) -> None:
    """Load the trigram models of every language written in ``script``, on every core.

    lingua keeps its models in process-wide maps shared by all detectors, so
    the all-languages detector finds them loaded; a model a window needs and
    this did not load is still loaded on first use, so what is computed never
    depends on it (only the time: one preload by the detector's rules costs
    the same CPU, serially, on the first window).
    """
    from lingua import Language, LanguageDetectorBuilder

    languages = getattr(Language, f"all_with_{script.lower()}_script")()
    builder = LanguageDetectorBuilder.from_languages(*languages).with_low_accuracy_mode()
    builder.with_preloaded_language_models().build()


_parallel_pid: int | None = None


def _rankings(windows: list[str]) -> list[Any]:
    """lingua's confidence ranking of each window, in order, on its thread pool.

    A forked child of a process that already started the pool has none (its
    threads are not forked), so there the windows are classified one by one.
    """
    global _parallel_pid
    detector = _detector()
    if _parallel_pid not in (None, os.getpid()):
        return [detector.compute_language_confidence_values(window) for window in windows]
    _parallel_pid = os.getpid()
    for script in sorted(window_scripts(windows)):
        _preload(script)
    rankings: list[Any] = detector.compute_language_confidence_values_in_parallel(windows)
    return rankings


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
