"""The field operations every merge contract shares.

A merge works on a deep copy of the talk (:class:`MergeResult`) and records
the fields it set or cleared for the report. ``clear_fields`` runs first
(also clearing the top-level copy of a promoted scalar); after the return's
content, the promoted ``structured_data`` scalars are copied to the top
level and the observations' score becomes the talk's ``pattern_score``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rvault_returns_persistence.vocabulary import CLEARABLE_TOP_LEVEL

# structured_data scalars the talk record also carries at top level (queryable copies).
PROMOTED: tuple[str, ...] = (
    "audience_interaction_count",
    "closing_type",
    "co_presenter",
    "co_presenters",
    "delivery_language",
    "illustration_style",
    "narrative_arc_type",
    "opening_type",
    "slide_count",
    "slide_design_style",
)
TOP_LEVEL_FIELDS = tuple(f for f in CLEARABLE_TOP_LEVEL if f != "adherence_comparison")


@dataclass
class MergeResult:
    talk: dict[str, Any]
    contract: str
    merged: set[str] = field(default_factory=set)
    cleared: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)


def is_empty(value: Any) -> bool:
    return value == "" or value == [] or value == {} or value is None


def additive(prior: Any, incoming: Any) -> Any:
    """The additive merge of one value: objects merge recursively skipping empty
    incoming values, lists gain new items, anything else is replaced."""
    if isinstance(prior, dict) and isinstance(incoming, dict):
        out = dict(prior)
        for key, value in incoming.items():
            if is_empty(value):
                continue
            out[key] = additive(out.get(key), value)
        return out
    if isinstance(prior, list) and isinstance(incoming, list):
        return prior + [copy.deepcopy(v) for v in incoming if v not in prior]
    return copy.deepcopy(incoming)


def apply_clear_fields(talk: dict[str, Any], paths: list[str]) -> list[str]:
    """Delete each dotted path (validated analysis-owned); returns the paths that existed."""
    cleared: list[str] = []
    for dotted in paths:
        head, _, rest = dotted.partition(".")
        if not rest:
            if head in talk:
                del talk[head]
                cleared.append(dotted)
            continue
        node: Any = talk.get(head)
        parts = rest.split(".")
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and parts[-1] in node:
            del node[parts[-1]]
            cleared.append(dotted)
        promoted = head == "structured_data" and len(parts) == 1 and parts[0] in PROMOTED
        if promoted and parts[0] in talk:
            del talk[parts[0]]  # the promoted copy goes with its source
            if dotted not in cleared:
                cleared.append(dotted)
    return cleared


def container(talk: dict[str, Any], name: str) -> dict[str, Any]:
    value = talk.get(name)
    if not isinstance(value, dict):
        value = {}  # a valid snapshot may repair a legacy non-object container
    talk[name] = value
    return value


def promote(result: MergeResult) -> None:
    talk = result.talk
    structured = talk.get("structured_data")
    if not isinstance(structured, dict):
        return
    for name in PROMOTED:
        if name in structured and talk.get(name) != structured[name]:
            talk[name] = copy.deepcopy(structured[name])
            result.merged.add(name)


def record_score(result: MergeResult) -> None:
    """The observations' integer score becomes the talk's queryable ``pattern_score``."""
    nested = result.talk.get("pattern_observations")
    score = nested.get("pattern_score") if isinstance(nested, dict) else None
    if isinstance(score, dict):
        score = score.get("score")
    if isinstance(score, int) and not isinstance(score, bool):
        result.talk["pattern_score"] = score
        result.merged.add("pattern_score")
