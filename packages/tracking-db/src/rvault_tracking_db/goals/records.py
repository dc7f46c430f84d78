"""The goals writer's plans: set a goal, revise it by superseding, retire it.

A new goal is always a complete schema-v2 record. A pattern goal (antipattern
or underuse) freezes the current post-batch full-cohort baseline in its
``baseline_provenance`` and states its baseline value as measured over that
cohort, so verification later compares like with like; pacing and other goals
name their own lane and carry the speaker's own words. Revising never edits
the old record: it is retired and a new record supersedes it, in one plan.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.goals.generation import Generation
from rvault_tracking_db.goals.metric import DIRECTION, METRIC, parse_fraction, share
from rvault_tracking_db.mutations.goal_ops import CURRENT_GOAL_VERSION, RETIRED
from rvault_tracking_db.mutations.plan import MISSING_MARKER, UPSERT_GOAL

LANES = {
    "antipattern": "pattern_scoring",
    "underuse": "pattern_scoring",
    "pacing": "pacing",
    "other": "independent",
}


@dataclass(frozen=True)
class GoalRequest:
    """What the speaker asked for, as typed (the command line's option names in refusals)."""

    id: str
    kind: str
    issue: str
    target: str
    set_date: str
    set_by: str
    pattern: str | None = None
    metric: str | None = None
    baseline: str | None = None
    supersedes: str | None = None


def new_goal(request: GoalRequest, generation: Generation | None) -> dict[str, Any]:
    """The complete v2 record, or a refusal naming the option to fix."""
    record: dict[str, Any] = {
        "schema_version": CURRENT_GOAL_VERSION,
        "id": request.id,
        "issue": request.issue,
        "kind": request.kind,
        "antipattern_id": request.pattern if request.kind == "antipattern" else None,
        "set_date": request.set_date,
        "set_by": request.set_by,
        "status": "active",
        "current_value": "",
        "last_checked": None,
        "checked_by": None,
        "verification_state": "pending",
        "verification_reasons": [],
        "supersedes_goal_id": request.supersedes,
        "baseline_provenance": {"lane": LANES[request.kind]},
    }
    if request.kind in DIRECTION:
        record |= _pattern_fields(request, generation)
        record["baseline_provenance"]["pattern_baseline"] = generation.baseline  # type: ignore[union-attr]
    else:
        for option, value in (("--metric", request.metric), ("--baseline", request.baseline)):
            if not value or not value.strip():
                raise Refusal(
                    "goal_option_required",
                    f"a {request.kind} goal states its {option[2:]} in the speaker's words",
                    option,
                    hint=f"pass {option} TEXT (a {request.kind} goal is not measured from "
                    "pattern scores)",
                )
        record |= {
            "metric": request.metric,
            "baseline_value": request.baseline,
            "target": request.target,
        }
    return record


def _pattern_fields(request: GoalRequest, generation: Generation | None) -> dict[str, Any]:
    if generation is None or generation.baseline.get("eligible_talk_count", 0) == 0:
        raise Refusal(
            "goal_baseline_unavailable",
            "no talk of the current scoring generation has been persisted yet",
            "--pattern",
            hint="persist a batch (rvault-returns persist) first; a pattern goal freezes the "
            "post-batch baseline it is judged against",
        )
    if not request.pattern:
        raise Refusal(
            "goal_option_required",
            f"an {request.kind} goal names the catalog id it measures",
            "--pattern",
            hint="pass --pattern ID (a catalog id, as in rvault-returns catalog)",
        )
    measured = share(generation.cohort, request.pattern)
    if measured.value is None:
        seen = sorted(
            {
                row.get("pattern_id")
                for _, obs in generation.cohort
                for row in obs.get("pattern_outcomes") or ()
                if isinstance(row, dict) and isinstance(row.get("pattern_id"), str)
            }
        )
        close = difflib.get_close_matches(request.pattern, seen, n=3)
        raise Refusal(
            "goal_metric_unavailable",
            f"{request.pattern!r} was not evaluable in any talk of the current generation",
            "--pattern",
            hint=(f"did you mean {', '.join(close)}? " if close else "")
            + "a pattern goal needs talks where the entry was detected or found absent",
            closest=close,
        )
    target = parse_fraction(request.target)
    if target is None:
        raise Refusal(
            "goal_target_invalid",
            f"{request.target!r} is not a share between 0 and 1",
            "--target",
            hint="pass the share of talks you aim for, e.g. --target 0.33",
        )
    bound = "at or below" if DIRECTION[request.kind] < 0 else "at or above"
    return {
        "metric": METRIC.format(pattern_id=request.pattern),
        "baseline_value": measured.text(),
        "target": f"{bound} {target:.2f}",
    }


def create(record: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": UPSERT_GOAL, "record": dict(record), "expect": MISSING_MARKER}


def retire(stored: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": UPSERT_GOAL, "record": {**stored, "status": RETIRED}, "expect": dict(stored)}


def find(goals: Any, goal_id: str, option: str = "--id") -> dict[str, Any]:
    """The stored goal with this id, or a refusal with the closest ids."""
    stored = [g for g in goals or () if isinstance(g, dict)]
    for goal in stored:
        if goal.get("id") == goal_id:
            return goal
    ids = sorted(str(g.get("id")) for g in stored)
    close = difflib.get_close_matches(goal_id, ids, n=3)
    raise Refusal(
        "goal_not_found",
        f"no goal with id {goal_id!r}",
        option,
        hint=(f"did you mean {', '.join(close)}? " if close else "")
        + "rvault-db goals list DB prints every goal",
        closest=close,
    )
