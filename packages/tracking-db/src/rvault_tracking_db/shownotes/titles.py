"""``shownotes_titles_agree``: the closed boolean title-agreement decision.

On an exact filename match the stored title is never replaced; the scanner
only asks whether the shownotes title names the same talk. Two titles agree
when, after Unicode NFKC case folding, dropping punctuation and collapsing
whitespace, they are equal, or equal once the stored conference name, the
stored date and its year are removed from either (sites often decorate a
title with "(DevConf 2024)"). Nothing else agrees: no fuzzy ratio, no
partial overlap. The answer is a bool, never a score.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def _normal(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NON_WORD.sub(" ", folded).replace("_", " ").split())


def _strip(text: str, removals: list[str]) -> str:
    padded = f" {text} "
    for removal in removals:
        if removal:
            padded = padded.replace(f" {removal} ", " ")
    return " ".join(padded.split())


def shownotes_titles_agree(
    stored_title: str | None,
    proposed_title: str | None,
    stored_conference: str | None,
    stored_date: str | None,
) -> bool:
    if not isinstance(stored_title, str) or not isinstance(proposed_title, str):
        return False
    left, right = _normal(stored_title), _normal(proposed_title)
    if not left or not right:
        return False
    if left == right:
        return True
    removals: list[str] = []
    if isinstance(stored_conference, str):
        removals.append(_normal(stored_conference))
    if isinstance(stored_date, str) and stored_date:
        removals.append(_normal(stored_date))
        year = stored_date[:4]
        if year.isdigit():
            removals.append(year)
    removals.sort(key=len, reverse=True)
    left_core, right_core = _strip(left, removals), _strip(right, removals)
    return bool(left_core) and left_core == right_core
