"""Assess every goal after a batch, and the one plan that records the comparable outcomes.

Per goal, in order: a closed goal (achieved, retired) is skipped; the
comparability gate decides whether this generation may judge it at all (a
v1 pattern goal, a changed catalog generation or scoring schema, a changed
opportunity coverage or a metric no reader can parse is reported and never
written); then the metric over the talks of this generation processed after
the goal's ``set_date`` (a goal is never judged on talks that predate it),
and the rubric. Only a comparable goal with counted talks yields a patch, and
the patch sets only verification fields, each bound to the value read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rvault_tracking_db.goals.generation import Cohort, Generation
from rvault_tracking_db.goals.metric import DIRECTION, goal_pattern, parse_fraction, share
from rvault_tracking_db.goals.rubric import judge
from rvault_tracking_db.mutations.goal_ops import CURRENT_GOAL_VERSION
from rvault_tracking_db.mutations.plan import MISSING_MARKER, PATCH_GOAL_VERIFICATION

CLOSED = ("achieved", "retired")
CHECKED_BY = "rvault-db goals verify"


@dataclass
class Assessment:
    """One goal's verification: the decision, why, and what would be written."""

    goal: Mapping[str, Any]
    decision: str
    reasons: list[str] = field(default_factory=list)
    status: str | None = None
    current_value: str | None = None
    talks: tuple[str, ...] = ()
    changes: dict[str, Any] | None = None
    """The verification fields verifying would change (``None``: the record already says it)."""
    patch: dict[str, Any] | None = None
    """The mutation a writer applies: ``changes`` stamped with the check time."""

    def to_dict(self) -> dict[str, Any]:
        goal = self.goal
        return {
            "baseline_value": goal.get("baseline_value"),
            "current_value": self.current_value,
            "decision": self.decision,
            "id": goal.get("id"),
            "issue": goal.get("issue"),
            "kind": goal.get("kind"),
            "pattern_id": goal_pattern(goal) if goal.get("kind") in DIRECTION else None,
            "reasons": self.reasons,
            "schema_version": goal.get("schema_version", 1),
            "set_date": goal.get("set_date"),
            "status": self.status,
            "status_before": goal.get("status"),
            "supersedes_goal_id": goal.get("supersedes_goal_id"),
            "talks_counted": list(self.talks),
            "target": goal.get("target"),
            "writes": self.changes is not None,
        }


def comparability(goal: Mapping[str, Any], generation: Generation | None) -> tuple[str, list[str]]:
    """``("comparable", [])`` or the report-only decision with its sorted reason codes."""
    kind = goal.get("kind")
    if kind not in DIRECTION:
        return "unverifiable", ["metric_source_unavailable"]  # pacing/other: no profile lane here
    if goal.get("schema_version", 1) != CURRENT_GOAL_VERSION:
        return "unverifiable", ["legacy_pattern_goal"]
    if generation is None:
        return "unverifiable", ["no_current_baseline"]
    frozen = (goal.get("baseline_provenance") or {}).get("pattern_baseline") or {}
    reasons = []
    if frozen.get("pattern_catalog_fingerprint") != generation.fingerprint:
        reasons.append("catalog_generation_changed")
    if frozen.get("pattern_scoring_schema_version") != generation.scoring_schema:
        reasons.append("scoring_schema_changed")
    current = generation.baseline
    if current.get("raw_score_comparison_status") != "available":
        reasons.append("current_raw_score_unavailable")
    elif frozen.get("opportunity_coverage_identity") != current.get(
        "opportunity_coverage_identity"
    ):
        reasons.append("opportunity_coverage_changed")
    if reasons:
        return "needs_rebaseline", sorted(reasons)
    if goal_pattern(goal) is None:
        return "unverifiable", ["metric_not_machine_readable"]
    if (
        parse_fraction(goal.get("baseline_value")) is None
        or parse_fraction(goal.get("target")) is None
    ):
        return "unverifiable", ["value_not_machine_readable"]
    return "comparable", []


def after(cohort: Cohort, set_date: Any) -> Cohort:
    """The cohort's talks processed on a later day than the goal was set."""
    if not isinstance(set_date, str) or len(set_date) < 10:
        return []
    day = set_date[:10]
    return [
        (talk, obs)
        for talk, obs in cohort
        if isinstance(talk.get("processed_date"), str) and talk["processed_date"][:10] > day
    ]


def assess(
    goal: Mapping[str, Any], generation: Generation | None, checked_at: str | None
) -> Assessment:
    """One goal's verdict; ``checked_at`` stamps the patch a writer would apply, and a
    reader that writes nothing passes ``None`` so no patch is built at all."""
    if goal.get("status") in CLOSED:
        return Assessment(goal, "closed", [f"goal_{goal.get('status')}"], goal.get("status"))
    decision, reasons = comparability(goal, generation)
    if decision != "comparable" or generation is None:
        return Assessment(goal, decision, reasons, goal.get("status"), goal.get("current_value"))
    pattern = goal_pattern(goal)
    assert pattern is not None  # comparability proved it
    measured = share(after(generation.cohort, goal.get("set_date")), pattern)
    if measured.value is None:
        return Assessment(
            goal,
            decision,
            ["no_talks_since_set_date"],
            goal.get("status"),
            goal.get("current_value"),
        )
    status = judge(
        parse_fraction(goal["baseline_value"]) or 0.0,
        parse_fraction(goal["target"]) or 0.0,
        measured.value,
        DIRECTION[goal["kind"]],
    )
    result = Assessment(goal, decision, [], status, measured.text(), measured.talks)
    result.changes = _changes(goal, status, measured.text())
    if result.changes is not None and checked_at is not None:
        result.patch = _patch(goal, result.changes, checked_at)
    return result


def _changes(goal: Mapping[str, Any], status: str, value: str) -> dict[str, Any] | None:
    wanted: dict[str, Any] = {"status": status, "current_value": value}
    if goal.get("schema_version") == CURRENT_GOAL_VERSION:
        wanted |= {"verification_state": "current", "verification_reasons": []}
    changed = {k: v for k, v in wanted.items() if goal.get(k, MISSING_MARKER) != v}
    return changed or None  # None: the record already says this, re-verifying writes nothing


def _patch(goal: Mapping[str, Any], changes: dict[str, Any], checked_at: str) -> dict[str, Any]:
    changed = changes | {"last_checked": checked_at, "checked_by": CHECKED_BY}
    return {
        "kind": PATCH_GOAL_VERIFICATION,
        "id": goal["id"],
        "set": changed,
        "expect": {k: goal.get(k, MISSING_MARKER) for k in changed},
    }


def assess_all(
    goals: Sequence[Any], generation: Generation | None, checked_at: str | None
) -> list[Assessment]:
    return [assess(g, generation, checked_at) for g in goals if isinstance(g, dict)]


def trend(goal: Mapping[str, Any], generation: Generation | None) -> list[dict[str, Any]]:
    """The goal's metric after each completed batch since it was set (cumulative).

    One point per batch, so a speaker sees the direction, not only the latest value;
    empty for a goal this generation cannot judge.
    """
    if generation is None or comparability(goal, generation)[0] != "comparable":
        return []
    pattern = goal_pattern(goal)
    cohort = sorted(
        after(generation.cohort, goal.get("set_date")),
        key=lambda pair: (pair[0]["processed_date"], str(pair[0].get("filename"))),
    )
    points: list[dict[str, Any]] = []
    for index, (talk, _) in enumerate(cohort):
        key = _batch_key(talk)
        last = index + 1 == len(cohort) or _batch_key(cohort[index + 1][0]) != key
        if not last:
            continue
        measured = share(cohort[: index + 1], pattern or "")
        if measured.value is not None:
            points.append(
                {
                    "as_of": talk["processed_date"],
                    "batch_id": key[1],
                    "run_id": key[0],
                    "talk_count": measured.evaluable,
                    "value": measured.value,
                }
            )
    return points


def _batch_key(talk: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    claim = talk.get("_queue_claim") if isinstance(talk.get("_queue_claim"), dict) else {}
    return (claim.get("run_id"), claim.get("batch_id"), talk.get("processed_date"))
