"""Quality policy v1: the word floor a transcript must reach.

The default floor is 400 words. Only a trusted duration (bound to the exact
source by a probe) may lower it, to 30 words per minute; a caller's
``--min-words`` can tighten the floor but never lower it below what the
policy derives. The same function is used to write and to re-check a
receipt, so a stored policy can be revalidated against its owner.
"""

from __future__ import annotations

import math

POLICY_SCHEMA_VERSION = 1
DEFAULT_MIN_WORDS = 400
WORDS_PER_MINUTE = 30
DURATION_TOLERANCE_SECONDS = 1.0


def derived_floor(duration_seconds: float | None) -> int:
    """The floor the policy derives from a trusted duration (or the fixed default)."""
    if duration_seconds is None:
        return DEFAULT_MIN_WORDS
    return max(1, min(DEFAULT_MIN_WORDS, math.ceil(duration_seconds / 60.0 * WORDS_PER_MINUTE)))


def effective_min_words(requested: int | None, duration_seconds: float | None) -> int:
    """The canonical floor actually applied: a request only ever tightens."""
    floor = derived_floor(duration_seconds)
    if requested is not None and requested > floor:
        return requested
    return floor


def durations_match(claimed: float, probed: float) -> bool:
    """An expected runtime matches a probe within the one-second measurement tolerance."""
    return abs(claimed - probed) <= DURATION_TOLERANCE_SECONDS


def policy_document(min_words: int, duration_seconds: float | None) -> dict[str, object]:
    return {
        "schema_version": POLICY_SCHEMA_VERSION,
        "min_words": min_words,
        "duration_seconds": duration_seconds,
    }
