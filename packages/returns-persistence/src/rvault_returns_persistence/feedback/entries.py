"""One feedback entry against the catalog: what it names, and what is wrong with it.

The aggregator reads returns of every version, so its rules are the audit's,
not the gate's: ``rvault-returns validate`` refuses a current return whose
feedback breaks the v5 contract; here a historical entry is read as it was
written and every departure from today's contract is reported, never
repaired. Exact catalog ids are never normalized (a misspelt id is an error
with the closest ids named); a proposed new name lives in its own namespace
and is folded only for recurrence counting.

A warning (legacy shape) keeps the entry in the counts; an error takes it out
of them and makes the report fail.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.issues import WARNING, Issue
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.vocabulary import (
    DEFINITION_PROBLEMS,
    feedback_fields,
    feedback_required,
    feedback_text_fields,
)

POLARITIES = ("pattern", "antipattern")
UNSPECIFIED = "unspecified"

#: Entry fields the v5 contract added; an entry written before it is read without them.
V5_ADDITIONS = frozenset({"proposed_name", "proposed_polarity"})
_FOLD = re.compile(r"[\W_]+")


def normalize_name(name: str) -> str:
    """The recurrence key of a proposed name: NFKC, case-folded, punctuation runs as ``-``.

    ``Fresh Move``, ``fresh_move`` and ``fresh-move!`` recur together; synonyms do not,
    because meaning is not guessed.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _FOLD.sub("-", folded).strip("-")


@dataclass(frozen=True)
class Suggestion:
    """A proposed new catalog name as written, its recurrence key and polarity."""

    name: str
    variant: str
    polarity: str


@dataclass
class CheckedEntry:
    """One entry with the catalog ids it names, its suggestion and its issues."""

    lane: str
    path: str
    raw: Any
    ids: tuple[str, ...] = ()
    suggestion: Suggestion | None = None
    issues: list[Issue] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return not any(issue.is_error for issue in self.issues)

    def error(self, code: str, path: str, message: str) -> None:
        self.issues.append(Issue(code, path, message))

    def warn(self, code: str, path: str, message: str) -> None:
        self.issues.append(Issue(code, path, message, severity=WARNING))


def check_entry(lane: str, raw: Any, path: str, *, catalog: Catalog, current: bool) -> CheckedEntry:
    """Check ``raw`` of ``lane``; ``current`` applies the v5 contract's stricter rules."""
    entry = CheckedEntry(lane, path, raw)
    if not isinstance(raw, dict):
        entry.error("feedback_entry_shape", path, f"a {lane} entry is an object")
        return entry
    required = [key for key in feedback_required(lane) if key not in V5_ADDITIONS]
    missing = [key for key in required if key not in raw]
    if missing:
        entry.error("feedback_entry_shape", path, f"a {lane} entry requires {missing}")
        return entry
    for key in sorted(feedback_text_fields(lane).intersection(required)):
        if not is_text(raw[key]):
            entry.error("feedback_entry_shape", child(path, key), f"{key} is non-empty text")
    if current:
        for key in sorted(set(raw) - feedback_fields(lane)):
            entry.warn(
                "feedback_entry_extra_field",
                child(path, key),
                f"{key!r} is outside the v5 {lane} entry (kept as written; validate refuses it)",
            )
    _LANE_CHECKS[lane](entry, raw, path, catalog, current)
    return entry


def _unmatched(
    entry: CheckedEntry, raw: dict[str, Any], path: str, catalog: Catalog, current: bool
) -> None:
    if "proposed_name" not in raw:
        return
    name = raw["proposed_name"]
    name_path = child(path, "proposed_name")
    if not is_text(name):
        entry.error("feedback_entry_shape", name_path, "proposed_name is non-empty text")
        return
    key = normalize_name(name)
    if not key:
        entry.error("feedback_entry_shape", name_path, "proposed_name has no letters or digits")
        return
    if key in catalog:
        entry.error(
            "feedback_proposed_name_collides",
            name_path,
            f"{name!r} names the existing catalog id {key!r}; report it under that id "
            "(definition_problems, tensions or confusable_pairs) instead of proposing it",
        )
        return
    polarity = raw.get("proposed_polarity")
    polarity_path = child(path, "proposed_polarity")
    if polarity is None and "proposed_polarity" not in raw:
        polarity = UNSPECIFIED
        message = "a proposed name without proposed_polarity is counted as unspecified"
        if current:
            entry.error("feedback_polarity_invalid", polarity_path, message)
        else:
            entry.warn("feedback_polarity_unspecified", polarity_path, message)
    elif polarity not in POLARITIES:
        entry.error(
            "feedback_polarity_invalid",
            polarity_path,
            "proposed_polarity is pattern or antipattern",
        )
        return
    entry.suggestion = Suggestion(key, name, polarity)


def _pairs(
    entry: CheckedEntry, raw: dict[str, Any], path: str, catalog: Catalog, current: bool
) -> None:
    ids = raw["pattern_ids"]
    ids_path = child(path, "pattern_ids")
    pair = entry.lane == "confusable_pairs"
    if (
        not isinstance(ids, list)
        or not all(isinstance(pid, str) for pid in ids)
        or len(set(ids)) != len(ids)
        or (len(ids) != 2 if pair else len(ids) < 2)
    ):
        wanted = "exactly two" if pair else "at least two"
        entry.error(
            "feedback_entry_shape", ids_path, f"pattern_ids names {wanted} distinct catalog ids"
        )
        return
    known = _known_ids(entry, ids, ids_path, catalog)
    guard = raw.get("catalog_polarities")
    if "catalog_polarities" in raw:
        _polarity_guard(entry, guard, child(path, "catalog_polarities"), ids, catalog)
    entry.ids = tuple(known)


def _definition(
    entry: CheckedEntry, raw: dict[str, Any], path: str, catalog: Catalog, current: bool
) -> None:
    pid = raw["pattern_id"]
    if not isinstance(pid, str):
        entry.error("feedback_entry_shape", child(path, "pattern_id"), "pattern_id is a catalog id")
        return
    known = _known_ids(entry, [pid], child(path, "pattern_id"), catalog, index=False)
    problem = raw["problem"]
    if problem not in DEFINITION_PROBLEMS:
        message = f"problem is one of {list(DEFINITION_PROBLEMS)}"
        if current or not is_text(problem):
            entry.error("feedback_entry_shape", child(path, "problem"), message)
        else:
            entry.warn("feedback_problem_unclassified", child(path, "problem"), message)
    if "catalog_polarity" in raw and known:
        _polarity_guard(
            entry, {pid: raw["catalog_polarity"]}, child(path, "catalog_polarity"), [pid], catalog
        )
    entry.ids = tuple(known)


def _scoring(
    entry: CheckedEntry, raw: dict[str, Any], path: str, catalog: Catalog, current: bool
) -> None:
    if "polarity" in raw and raw["polarity"] != "neutral":
        entry.error(
            "feedback_polarity_invalid",
            child(path, "polarity"),
            "a scoring problem is about the model, so its only polarity is neutral",
        )


def _known_ids(
    entry: CheckedEntry, ids: Sequence[str], path: str, catalog: Catalog, *, index: bool = True
) -> list[str]:
    known: list[str] = []
    for position, pid in enumerate(ids):
        if pid in catalog:
            known.append(pid)
            continue
        close = difflib.get_close_matches(pid, sorted(catalog.entries), n=3, cutoff=0.6)
        nearest = f"; closest: {', '.join(close)}" if close else ""
        entry.error(
            "feedback_unknown_pattern",
            child(path, position) if index else path,
            f"{pid!r} is not a catalog id (ids are exact, never normalized){nearest}",
        )
    return known


def _polarity_guard(
    entry: CheckedEntry, guard: Any, path: str, ids: Sequence[str], catalog: Catalog
) -> None:
    """A producer's asserted polarities must name exactly the ids and agree with the catalog."""
    if not isinstance(guard, dict) or set(guard) != set(ids):
        entry.error(
            "feedback_polarity_mismatch", path, "the asserted polarities name exactly pattern_ids"
        )
        return
    for pid in sorted(guard):
        catalog_entry = catalog.get(pid)
        if catalog_entry is not None and guard[pid] != catalog_entry.type:
            entry.error(
                "feedback_polarity_mismatch",
                child(path, pid),
                f"{pid!r} is a {catalog_entry.type} in the catalog, not {guard[pid]!r}",
            )


_LANE_CHECKS = {
    "unmatched_observations": _unmatched,
    "tensions": _pairs,
    "confusable_pairs": _pairs,
    "definition_problems": _definition,
    "scoring_problems": _scoring,
}
