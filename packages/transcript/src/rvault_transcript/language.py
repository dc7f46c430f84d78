"""Which language a transcript is in: what its source claims and what it says.

A caption file names a language twice, in its ``Language:`` header and in a
``talk.xx.vtt`` file name, and both are often wrong (a Spanish track saved as
``*.en.vtt``). Neither is taken on trust: the text itself is classified by
lingua (offline, its models ship in the wheel) in windows of a few lines,
so a transcript that changes language is reported with each language's
share instead of as one language. Whisper's per-window audio detection
(:mod:`rvault_transcript.whisper`) reports the same :class:`Detection`.

:func:`resolve_language` compares claims with the detection; a claim the
text contradicts raises :class:`LanguageMismatch` (the import refuses it with
a hint), never a silent pick. :func:`language_record` is the ``language``
object of quality receipt v2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# lingua classifies a window of at least this many non-space characters (about
# 40 words); shorter windows are unreliable and lines are joined until then.
WINDOW_CHARS = 200
# Below this many characters in all the text is too short to say anything.
MIN_TEXT_CHARS = 60
# A window whose best language has less confidence than this is not counted.
MIN_CONFIDENCE = 0.5
# A transcript is mixed when a second language has at least this share.
MIXED_SHARE = 0.05
SHARE_DIGITS = 3
TEXT_DETECTOR = "lingua"
AUDIO_DETECTOR = "whisper"

LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
_HEADER = re.compile(r"^Language:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_NAME = re.compile(r"\.([A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)\.vtt$", re.IGNORECASE)
# Codes that name the same language as the detectors' ISO 639-1 code
# (YouTube's legacy Hebrew/Indonesian codes, Whisper's Javanese, Norwegian).
_ALIASES = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "no": "nb", "fil": "tl"}


@dataclass(frozen=True)
class Claim:
    """A language some source states: the header, the file name, a track, the operator."""

    language: str
    source: str

    @property
    def primary(self) -> str:
        return primary_subtag(self.language)

    def to_dict(self) -> dict[str, str]:
        return {"language": self.language, "source": self.source}


@dataclass(frozen=True)
class Detection:
    """Languages found in the content, largest share first (shares of what was classified)."""

    detector: str
    shares: tuple[tuple[str, float], ...]

    @property
    def primary(self) -> str:
        return self.shares[0][0]

    @property
    def mixed(self) -> bool:
        return sum(1 for _, share in self.shares if share >= MIXED_SHARE) >= 2

    def summary(self) -> str:
        return ", ".join(f"{code} {share:.0%}" for code, share in self.shares)

    def to_dict(self) -> dict[str, Any]:
        return {
            "detector": self.detector,
            "languages": [{"language": code, "share": share} for code, share in self.shares],
            "mixed": self.mixed,
        }


class LanguageMismatch(Exception):
    """A claimed language the content contradicts."""

    def __init__(self, claims: Sequence[Claim], detection: Detection | None) -> None:
        stated = ", ".join(f"{c.language} ({c.source})" for c in claims)
        if detection is None:
            message = f"the claims disagree ({stated}) and the text is too short to decide"
        else:
            message = f"the text reads as {detection.summary()}, but it is claimed as {stated}"
        super().__init__(message)
        self.message = message
        self.claims = tuple(claims)
        self.detection = detection


def primary_subtag(tag: str) -> str:
    """``en-US`` -> ``en``; aliases folded so claims compare with detected codes."""
    primary = tag.split("-", 1)[0].lower()
    return _ALIASES.get(primary, primary)


def shares_from(weights: Iterable[tuple[str, float]], detector: str) -> Detection | None:
    """Sum weights per language into rounded shares, largest first; None without any weight."""
    totals: dict[str, float] = {}
    for code, weight in weights:
        totals[code] = totals.get(code, 0.0) + weight
    whole = sum(totals.values())
    if whole <= 0:
        return None
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    shares = tuple((code, round(weight / whole, SHARE_DIGITS)) for code, weight in ranked)
    return Detection(detector, tuple((c, s) for c, s in shares if s > 0))


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
    return len(primary) == 2 or primary in _ALIASES or primary in _three_letter_codes()


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


def text_windows(lines: Iterable[str]) -> list[str]:
    """Consecutive lines joined into windows of at least WINDOW_CHARS non-space characters."""
    windows: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        current.append(line)
        size += sum(1 for ch in line if not ch.isspace())
        if size >= WINDOW_CHARS:
            windows.append(" ".join(current))
            current, size = [], 0
    if current:
        if windows and size < WINDOW_CHARS:
            windows[-1] = windows[-1] + " " + " ".join(current)
        else:
            windows.append(" ".join(current))
    return windows


def detect_text_languages(lines: Iterable[str]) -> Detection | None:
    """Each window's most confident language, weighted by its characters; None when undecided."""
    windows = text_windows(lines)
    if sum(sum(1 for ch in w if not ch.isspace()) for w in windows) < MIN_TEXT_CHARS:
        return None
    detector = _detector()
    weights = []
    for window in windows:
        ranked = detector.compute_language_confidence_values(window)
        if ranked and ranked[0].value >= MIN_CONFIDENCE:
            code = ranked[0].language.iso_code_639_1.name.lower()
            weights.append((code, float(sum(1 for ch in window if not ch.isspace()))))
    return shares_from(weights, TEXT_DETECTOR)


def resolve_language(
    claims: Sequence[Claim], detection: Detection | None, stated: Claim | None = None
) -> str | None:
    """The transcript's language: the operator's statement, else claims the text confirms.

    ``stated`` (``--language``) is taken as given and recorded beside the
    detection. Otherwise every claim must name the detected primary
    language (:class:`LanguageMismatch` when one does not); with no claim the
    detected language is used, and without a detection the claims must agree.
    """
    if stated is not None:
        return stated.language
    if detection is None:
        if len({c.primary for c in claims}) > 1:
            raise LanguageMismatch(claims, None)
        return claims[0].language if claims else None
    wrong = [c for c in claims if c.primary != detection.primary]
    if wrong:
        raise LanguageMismatch(wrong, detection)
    return claims[0].language if claims else detection.primary


def language_record(
    language: str | None, claims: Sequence[Claim], detection: Detection | None
) -> dict[str, Any]:
    """The ``language`` object of quality receipt v2."""
    return {
        "language": language,
        "claimed": [claim.to_dict() for claim in claims],
        "detected": None if detection is None else detection.to_dict(),
    }


def existing_text_record(text: str) -> dict[str, Any]:
    """An existing transcript: no source says its language (null), the text is classified."""
    return language_record(None, [], detect_text_languages(text.splitlines()))


def caption_track_record(track_language: str, lines: Sequence[str]) -> dict[str, Any]:
    """A caption track's own code, checked against its text (:class:`LanguageMismatch`)."""
    claim = Claim(track_language, "caption_track")
    detection = detect_text_languages(lines)
    language = resolve_language([claim], detection)
    return language_record(language, [claim], detection)


def speech_record(detection: Detection) -> dict[str, Any]:
    """Whisper output: the language with the largest share of the speech, no claim."""
    return language_record(detection.primary, [], detection)
