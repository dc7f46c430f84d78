"""The valid names closest to one a person typed, for refusals that say "did you mean".

An unknown talk filename, catalog id, pattern id or mutation kind is a typo
more often than not; listing the nearest valid names (difflib's ratio, the
standard library's) turns a dead end into the next command. Matching stays
exact: a suggestion is only ever shown, never used.
"""

from __future__ import annotations

from collections.abc import Iterable

CUTOFF = 0.6


def closest(word: str, candidates: Iterable[object], n: int = 3) -> list[str]:
    """Up to ``n`` of ``candidates`` (strings only) closest to ``word``, best first."""
    import difflib  # only a refusal asks: a valid run never loads it

    names = sorted({c for c in candidates if isinstance(c, str)})
    return difflib.get_close_matches(word, names, n=n, cutoff=CUTOFF)


def did_you_mean(word: str, candidates: Iterable[object]) -> str:
    """``"; did you mean 'a' or 'b'?"`` for a message's end, or ``""`` when nothing is close."""
    found = closest(word, candidates)
    if not found:
        return ""
    return "; did you mean " + " or ".join(repr(name) for name in found) + "?"
