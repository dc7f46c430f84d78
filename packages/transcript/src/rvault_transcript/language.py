"""Which language a transcript is in: claims, detections, and how they are decided.

A caption file names a language twice, in its ``Language:`` header and in a
``talk.xx.vtt`` file name, and both are often wrong (a Spanish track saved as
``*.en.vtt``); a caption track has its own code. Neither is taken on trust:
the content is classified (text by :mod:`rvault_transcript.text_language`,
speech by :mod:`rvault_transcript.speech_language`) into a
:class:`Detection`, each language with its share, so a transcript that
changes language is reported as such instead of as one language.

:func:`resolve_language` compares claims with the detection; a claim the
content contradicts raises :class:`LanguageMismatch` (the import refuses it
with a hint), never a silent pick. :func:`language_record` is the
``language`` object of quality receipt v2. This module stays light (the
receipt validators and so the consumers' api import it); lingua is imported
only by :mod:`rvault_transcript.text_language`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# A transcript is mixed when a second language has at least this share.
MIXED_SHARE = 0.05
SHARE_DIGITS = 3
TEXT_DETECTOR = "lingua"
AUDIO_DETECTOR = "whisper"

LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
# Codes that name the same language as the detectors' ISO 639-1 code
# (YouTube's legacy Hebrew/Indonesian codes, Whisper's Javanese, Norwegian).
ALIASES = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "no": "nb", "fil": "tl"}


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
    return ALIASES.get(primary, primary)


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


def speech_record(detection: Detection) -> dict[str, Any]:
    """Whisper output: the language with the largest share of the speech, no claim."""
    return language_record(detection.primary, [], detection)
