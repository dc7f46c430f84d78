"""A pattern goal's metric: the share of evaluable talks in which one catalog id is detected.

Only talks where the entry was evaluable count (detected or undetected); a
not-evaluable or not-applicable outcome says nothing about the speaker, so it
neither helps nor hurts. Values are written as ``"k of n talks (0.67)"`` so
a person reads the counts and a reader parses the fraction without guessing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: Lower is better for an antipattern, higher for an underused pattern.
DIRECTION = {"antipattern": -1, "underuse": 1}
METRIC = "share of evaluable talks where {pattern_id} is detected"
_METRIC = re.compile(r"^share of evaluable talks where (\S+) is detected$")
_FRACTION = re.compile(r"(\d+(?:\.\d+)?)\)?\s*$")
EVALUABLE = frozenset({"detected", "undetected"})


@dataclass(frozen=True)
class Share:
    """How many evaluable talks detected the entry, and which talks were counted."""

    detected: int
    evaluable: int
    talks: tuple[str, ...]

    @property
    def value(self) -> float | None:
        return round(self.detected / self.evaluable, 2) if self.evaluable else None

    def text(self) -> str:
        return f"{self.detected} of {self.evaluable} talks ({self.value:.2f})"


def goal_pattern(goal: Mapping[str, Any]) -> str | None:
    """The catalog id a pattern goal measures, or ``None`` when no reader can tell."""
    if goal.get("kind") == "antipattern" and isinstance(goal.get("antipattern_id"), str):
        return goal["antipattern_id"]
    metric = goal.get("metric")
    match = _METRIC.match(metric) if isinstance(metric, str) else None
    return match.group(1) if match else None


def parse_fraction(value: Any) -> float | None:
    """The fraction a stored value or target ends with (``"4 of 6 talks (0.67)"``,
    ``"at or below 0.33"``, ``0.5``); ``None`` when it names none in [0, 1]."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and (match := _FRACTION.search(value)):
        number = float(match.group(1))
    else:
        return None
    return number if 0.0 <= number <= 1.0 else None


def outcome_of(observations: Mapping[str, Any], pattern_id: str) -> str | None:
    for row in observations.get("pattern_outcomes") or ():
        if isinstance(row, dict) and row.get("pattern_id") == pattern_id:
            return row.get("outcome")
    return None


def share(cohort: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]], pattern_id: str) -> Share:
    """The share over ``(talk, observations)`` pairs, counting only evaluable outcomes."""
    detected = 0
    counted: list[str] = []
    for talk, observations in cohort:
        outcome = outcome_of(observations, pattern_id)
        if outcome in EVALUABLE:
            counted.append(str(talk.get("filename")))
            detected += outcome == "detected"
    return Share(detected, len(counted), tuple(sorted(counted)))
