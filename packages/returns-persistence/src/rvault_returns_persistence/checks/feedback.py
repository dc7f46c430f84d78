"""catalog_feedback: five mandatory lanes, exact catalog ids and polarities.

Feedback is how the catalog improves; a misspelt id or a proposal that
reuses an existing id would be silently lost, so both are errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child
from rvault_contracts.suggest import did_you_mean

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import (
    DEFINITION_PROBLEMS,
    FEEDBACK_LANES,
    feedback_fields,
    feedback_text_fields,
)


def check_feedback(ctx: ReturnContext) -> None:
    path = child(ctx.path, "catalog_feedback")
    feedback = ctx.ret.get("catalog_feedback")
    if "catalog_feedback" not in ctx.ret:
        return
    if not isinstance(feedback, dict):
        ctx.add("wrong_type", path, "catalog_feedback is an object of five lanes")
        return
    for lane in FEEDBACK_LANES:
        if lane not in feedback:
            ctx.add(
                "catalog_feedback_lanes",
                child(path, lane),
                f"catalog_feedback requires the {lane} lane (empty is valid)",
            )
    for lane in sorted(set(feedback) - set(FEEDBACK_LANES)):
        ctx.add(
            "catalog_feedback_lanes", child(path, lane), f"{lane!r} is not a catalog_feedback lane"
        )
    for lane in FEEDBACK_LANES:
        items = feedback.get(lane)
        if lane not in feedback:
            continue
        l_path = child(path, lane)
        if not isinstance(items, list):
            ctx.add("wrong_type", l_path, f"{lane} is an array")
            continue
        for index, item in enumerate(items):
            _check_item(ctx, child(l_path, index), lane, item)


def _check_item(ctx: ReturnContext, path: str, lane: str, item: Any) -> None:
    """The entry's exact fields (the schema's), its text, then its lane's own rule."""
    fields = feedback_fields(lane)
    if not isinstance(item, dict) or set(item) != fields:
        ctx.add("feedback_entry_shape", path, f"a {lane} entry has exactly {sorted(fields)}")
        return
    for key in sorted(feedback_text_fields(lane)):
        if not is_text(item[key]):
            ctx.add("feedback_entry_shape", child(path, key), f"{key} is non-empty text")
    rule = _LANE_RULES.get(lane)
    if rule is not None:
        rule(ctx, path, lane, item)


def _check_unmatched(ctx: ReturnContext, path: str, lane: str, item: dict[str, Any]) -> None:
    """A proposal: a polarity, and a name outside the catalog's id namespace."""
    if item["proposed_polarity"] not in ("pattern", "antipattern"):
        ctx.add(
            "feedback_polarity_invalid",
            child(path, "proposed_polarity"),
            "proposed_polarity is pattern or antipattern",
        )
    name = item["proposed_name"]  # a text field: _check_item reports a blank one
    if is_text(name) and name in ctx.catalog:
        ctx.add(
            "feedback_proposed_name_collides",
            child(path, "proposed_name"),
            f"{name!r} is an existing catalog id; proposals use a separate namespace",
        )


def _check_pairs(ctx: ReturnContext, path: str, lane: str, item: dict[str, Any]) -> None:
    """Distinct exact catalog ids: two or more in a tension, exactly two in a confusable pair."""
    ids = item["pattern_ids"]
    size_ok = (
        len(ids) == 2
        if lane == "confusable_pairs"
        else len(ids) >= 2
        if isinstance(ids, list)
        else False
    )
    if not isinstance(ids, list) or not size_ok or len(set(map(str, ids))) != len(ids):
        ctx.add(
            "feedback_entry_shape",
            child(path, "pattern_ids"),
            "pattern_ids names distinct catalog ids (exactly two for a confusable pair)",
        )
        return
    for index, pid in enumerate(ids):
        if pid not in ctx.catalog:
            ctx.add(
                "feedback_unknown_pattern",
                child(child(path, "pattern_ids"), index),
                f"{pid!r} is not a catalog id{_closest(pid, ctx.catalog)}",
            )


def _check_definition(ctx: ReturnContext, path: str, lane: str, item: dict[str, Any]) -> None:
    """An exact catalog id and a problem from the closed vocabulary."""
    if item["pattern_id"] not in ctx.catalog:
        ctx.add(
            "feedback_unknown_pattern",
            child(path, "pattern_id"),
            f"{item['pattern_id']!r} is not a catalog id"
            + _closest(item["pattern_id"], ctx.catalog),
        )
    if item["problem"] not in DEFINITION_PROBLEMS:
        ctx.add(
            "feedback_entry_shape",
            child(path, "problem"),
            f"problem is one of {list(DEFINITION_PROBLEMS)}",
        )


_LANE_RULES: dict[str, Callable[[ReturnContext, str, str, dict[str, Any]], None]] = {
    "unmatched_observations": _check_unmatched,
    "tensions": _check_pairs,
    "confusable_pairs": _check_pairs,
    "definition_problems": _check_definition,
}


def _closest(pid: Any, catalog: Catalog) -> str:
    """``; did you mean 'bookends'?`` for a misspelt id (ids stay exact, never normalized)."""
    return did_you_mean(pid, catalog.entries) if isinstance(pid, str) else ""
