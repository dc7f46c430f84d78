"""Deterministic comparisons of catalog facts with source facts.

Every answer is one of three values, because "cannot tell" must never read
as agreement: ``AGREE``, ``CONFLICT`` or ``UNKNOWN`` (a side lacks the fact,
or the overlap is too weak to decide either way). Callers map ``CONFLICT``
to a blocking finding or a contradicted binding and ``UNKNOWN`` to a warning
or an unproven binding.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import date

AGREE = "agree"
CONFLICT = "conflict"
UNKNOWN = "unknown"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")
# An explicitly delimited subtitle a provider may drop ("Base: subtitle").
_SUBTITLE = re.compile(r"\s+[-\u2013\u2014|]\s+|:\s+")
# Words that carry no identity: articles, joiners, and the filler every talk
# title and upload title shares.
_STOPWORD_TEXT = (
    "a an and the of to in on for with at by from or is are how why what your you we our "
    "my i it its this that be vs via talk keynote session live recording video"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))


def words(text: object) -> list[str]:
    """Lower-case, accent-folded word tokens of ``text`` (empty for a non-string)."""
    if not isinstance(text, str):
        return []
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return _WORD.findall(folded)


def significant(text: object) -> frozenset[str]:
    """The words of ``text`` that can identify it (no stopwords, no bare years)."""
    return frozenset(w for w in words(text) if w not in STOPWORDS and not _YEAR.fullmatch(w))


def base_title(text: str) -> str:
    """The title before an explicitly delimited subtitle."""
    return _SUBTITLE.split(text, maxsplit=1)[0]


def titles_agree(catalog: object, source: object) -> str:
    """Whether a source title names the catalog title.

    ``AGREE`` when the distinctive words of one title (or of its base title,
    the part before a delimited subtitle) all appear in the other; a
    provider's title may add the event or drop the subtitle. ``CONFLICT``
    when they share no distinctive word; anything in between is ``UNKNOWN``.
    """
    if not isinstance(catalog, str) or not isinstance(source, str):
        return UNKNOWN
    whole_c, whole_s = significant(catalog), significant(source)
    if not whole_c or not whole_s:
        return UNKNOWN
    for left in (whole_c, significant(base_title(catalog))):
        for right in (whole_s, significant(base_title(source))):
            if left and right and (left <= whole_s or right <= whole_c):
                return AGREE
    return CONFLICT if not whole_c & whole_s else UNKNOWN


def name_agrees(claimed: str, known: str) -> bool:
    """A full name agrees with itself and with its surname alone."""
    a, b = words(claimed), words(known)
    if not a or not b:
        return False
    return a == b or (len(a) == 1 and a[0] == b[-1]) or (len(b) == 1 and b[0] == a[-1])


def speakers_agree(recorded: Iterable[object], known: Iterable[object]) -> str:
    """``AGREE`` when one recorded speaker is a known speaker, ``UNKNOWN`` without names."""
    left = [s for s in recorded if isinstance(s, str) and s.strip()]
    right = [s for s in known if isinstance(s, str) and s.strip()]
    if not left or not right:
        return UNKNOWN
    return AGREE if any(name_agrees(a, b) for a in left for b in right) else CONFLICT


def parse_date(value: object) -> date | None:
    """An ISO ``YYYY-MM-DD`` date, or ``None``."""
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def catalog_year(value: object) -> int | None:
    """The year of a catalog date (a full date or a leading ``YYYY``)."""
    parsed = parse_date(value)
    if parsed is not None:
        return parsed.year
    if isinstance(value, str) and re.fullmatch(r"(19|20)\d{2}(-\d{2})?", value):
        return int(value[:4])
    return None


def years_in(text: object) -> frozenset[int]:
    """Every four-digit year (1900-2099) written in ``text``."""
    if not isinstance(text, str):
        return frozenset()
    return frozenset(int(m.group(0)) for m in _YEAR.finditer(text))


def durations_agree(catalog: float, source: float) -> bool:
    """Within the greater of 60 seconds and 5 % of the catalog duration."""
    return abs(catalog - source) <= max(60.0, 0.05 * catalog)
