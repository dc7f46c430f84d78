"""Applying one validated return to its talk record.

Return versions 2-5 share the complete-snapshot contract: a supplied
declared scalar or list replaces the prior value (an empty value is a real
snapshot), each registered structured object and each verbatim lane is
replaced whole so no child of an older run survives, the image-source
distribution and its basis move as one group, ``structured_data.extensions``
is the only recursively additive place, and an omitted field is untouched.
Missing/v1 returns keep the historical additive contract (empty values are
no-ops, objects merge recursively, lists gain new items). ``clear_fields``
runs first and also clears the top-level copy of a promoted scalar. A
skipped result changes only its status (and, elsewhere, its lease).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_returns_persistence.vocabulary import CLEARABLE_TOP_LEVEL, VERBATIM_LANES

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
IMAGE_GROUP = ("image_source_distribution", "image_source_distribution_basis")
TOP_LEVEL_FIELDS = tuple(f for f in CLEARABLE_TOP_LEVEL if f != "adherence_comparison")


@dataclass
class MergeResult:
    talk: dict[str, Any]
    contract: str
    merged: set[str] = field(default_factory=set)
    cleared: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)


def _is_empty(value: Any) -> bool:
    return value == "" or value == [] or value == {} or value is None


def _additive(prior: Any, incoming: Any) -> Any:
    """The legacy v1 merge of one value (empty incoming values never reach here)."""
    if isinstance(prior, dict) and isinstance(incoming, dict):
        out = dict(prior)
        for key, value in incoming.items():
            if _is_empty(value):
                continue
            out[key] = _additive(out.get(key), value)
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


def _container(talk: dict[str, Any], name: str) -> dict[str, Any]:
    value = talk.get(name)
    if not isinstance(value, dict):
        value = {}  # a valid snapshot may repair a legacy non-object container
    talk[name] = value
    return value


def _snapshot(result: MergeResult, ret: dict[str, Any]) -> None:
    talk = result.talk
    for name in TOP_LEVEL_FIELDS:
        if name in ret:
            talk[name] = copy.deepcopy(ret[name])
            result.merged.add(name)
    if "adherence_comparison" in talk and "adherence_comparison" not in ret:
        del talk["adherence_comparison"]  # a stale comparison of a prior generation
        result.merged.add("adherence_comparison")
    elif "adherence_comparison" in ret:
        talk["adherence_comparison"] = copy.deepcopy(ret["adherence_comparison"])
        result.merged.add("adherence_comparison")
    incoming = ret.get("structured_data")
    if isinstance(incoming, dict) and incoming:
        structured = _container(talk, "structured_data")
        for key, value in incoming.items():
            if key == "extensions":
                structured[key] = _additive(structured.get(key, {}), value)
            elif key in IMAGE_GROUP:
                for member in IMAGE_GROUP:  # one dependent group
                    if member in incoming:
                        structured[member] = copy.deepcopy(incoming[member])
                    else:
                        structured.pop(member, None)
            else:
                structured[key] = copy.deepcopy(value)
            result.merged.add(f"structured_data.{key}")
    lanes = ret.get("verbatim_examples")
    if isinstance(lanes, dict) and lanes:
        verbatim = _container(talk, "verbatim_examples")
        for lane, value in lanes.items():
            verbatim[lane] = copy.deepcopy(value)
            result.merged.add(f"verbatim_examples.{lane}")
    stale = sorted(set(talk.get("verbatim_examples") or {}) - set(VERBATIM_LANES))
    if isinstance(talk.get("verbatim_examples"), dict) and stale:
        raise Refusal(
            "verbatim_lane_stale",
            f"the effective verbatim_examples would keep undeclared lanes {stale}",
            "$.verbatim_examples",
            hint="add " + ", ".join(f"verbatim_examples.{s}" for s in stale) + " to clear_fields",
        )


def _legacy(result: MergeResult, ret: dict[str, Any]) -> None:
    talk = result.talk
    for name in (*TOP_LEVEL_FIELDS, "adherence_comparison"):
        if name in ret:
            if _is_empty(ret[name]):
                result.warnings.append(
                    {
                        "code": "legacy_empty_value_ignored",
                        "message": f"a v1 return's empty {name} is a no-op (additive contract)",
                        "path": f"$.{name}",
                    }
                )
                continue
            talk[name] = _additive(talk.get(name), ret[name])
            result.merged.add(name)
    for block in ("structured_data", "verbatim_examples"):
        incoming = ret.get(block)
        if isinstance(incoming, dict):
            for key, value in incoming.items():
                if _is_empty(value):
                    continue
                container = _container(talk, block)
                container[key] = _additive(container.get(key), value)
                result.merged.add(f"{block}.{key}")


def _promote(result: MergeResult) -> None:
    talk = result.talk
    structured = talk.get("structured_data")
    if not isinstance(structured, dict):
        return
    for name in PROMOTED:
        if name in structured and talk.get(name) != structured[name]:
            talk[name] = copy.deepcopy(structured[name])
            result.merged.add(name)


def merge_processed(
    talk: dict[str, Any],
    ret: dict[str, Any],
    *,
    version: int,
    observations: dict[str, Any] | None,
) -> MergeResult:
    """The talk after ``clear_fields`` and the return's analysis content (no claim/stamps)."""
    result = MergeResult(copy.deepcopy(talk), "legacy_additive" if version == 1 else "snapshot")
    clear = ret.get("clear_fields")
    if isinstance(clear, list):
        result.cleared = apply_clear_fields(result.talk, clear)
    if version == 1:
        _legacy(result, ret)
        if isinstance(ret.get("pattern_observations"), dict):
            prior = result.talk.get("pattern_observations")
            result.talk["pattern_observations"] = _additive(
                prior if isinstance(prior, dict) else {}, ret["pattern_observations"]
            )
            result.merged.add("pattern_observations")
    else:
        _snapshot(result, ret)
        if observations is None and isinstance(ret.get("pattern_observations"), dict):
            observations = copy.deepcopy(ret["pattern_observations"])  # v2/v3: as returned
        if observations is not None:
            result.talk["pattern_observations"] = observations
            result.merged.add("pattern_observations")
    _promote(result)
    nested = result.talk.get("pattern_observations")
    score = nested.get("pattern_score") if isinstance(nested, dict) else None
    if isinstance(score, dict):
        score = score.get("score")
    if isinstance(score, int) and not isinstance(score, bool):
        result.talk["pattern_score"] = score
        result.merged.add("pattern_score")
    return result
