"""One goals command: read, assess, plan, then the one apply protocol; one report.

``list`` reads only. ``set``, ``revise`` and ``retire`` are the goals writer,
``verify`` the verification writer; each builds one mutation plan from the
read and hands it to ``run_mutation`` (dry run by default, ``--apply
--expected-sha256`` to install), so the goal writers keep every rule of the
owner's mutation contract: expectations, whole-candidate assessment, the
writer lock and unchanged bytes on refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal, apply_command

from rvault_tracking_db.goals import records
from rvault_tracking_db.goals.generation import Generation, current_generation
from rvault_tracking_db.goals.verify import assess_all, trend
from rvault_tracking_db.mutations.goal_ops import RETIRED
from rvault_tracking_db.mutations.plan import PLAN_VERSION, parse_plan
from rvault_tracking_db.mutations.transaction import run_mutation
from rvault_tracking_db.reader import read_database

REPORT_VERSION = 1
ACTIONS = ("list", "set", "revise", "retire", "verify")


@dataclass(frozen=True)
class GoalsCommand:
    """What one ``rvault-db goals ACTION`` asked for."""

    database: str
    action: str
    checked_at: str
    apply: bool = False
    expected: str | None = None
    request: records.GoalRequest | None = None
    goal_id: str | None = None


def run_goals(command: GoalsCommand) -> dict[str, Any]:
    read = read_database(command.database)
    database = read.database or {}
    goals = database.get("improvement_goals") or []
    generation = current_generation(database.get("talks") or [])
    assessments = assess_all(goals, generation, command.checked_at)
    mutations = _mutations(command, goals, generation, assessments)
    mutation = None
    if mutations:
        plan = parse_plan({"schema_version": PLAN_VERSION, "mutations": mutations})
        mutation = run_mutation(
            command.database, plan, apply=command.apply, expected=command.expected
        )
    dry = mutation is not None and mutation["mode"] == "dry-run"
    return {
        "action": command.action,
        "generation": _generation(generation),
        "goals": [{**a.to_dict(), "trend": trend(a.goal, generation)} for a in assessments],
        "input_sha256": read.sha256,
        "mutation": mutation,
        "next_command": apply_command(read.sha256) if dry else None,
        "ok": True,
        "schema_version": REPORT_VERSION,
    }


def rows(assessments: list[Any], generation: Generation | None) -> list[dict[str, Any]]:
    """The report rows: each assessment with its goal's trend."""
    return [{**a.to_dict(), "trend": trend(a.goal, generation)} for a in assessments]


def goal_rows(database: dict[str, Any]) -> list[dict[str, Any]]:
    """What ``goals verify`` would report for ``database``, without writing (for readers):
    no patch is built, so no check time is needed."""
    generation = current_generation(database.get("talks") or [])
    return rows(assess_all(database.get("improvement_goals") or [], generation, None), generation)


def _mutations(
    command: GoalsCommand,
    goals: list[Any],
    generation: Generation | None,
    assessments: list[Any],
) -> list[dict[str, Any]]:
    if command.action == "verify":
        return [a.patch for a in assessments if a.patch is not None]
    if command.action == "set":
        assert command.request is not None
        _require_new(goals, command.request.id)
        return [records.create(records.new_goal(command.request, generation))]
    if command.action in ("revise", "retire"):
        assert command.goal_id is not None
        stored = records.find(goals, command.goal_id)
        if stored.get("status") == RETIRED:
            raise Refusal(
                "goal_not_active",
                f"goal {command.goal_id!r} is already retired",
                "--id",
                hint="rvault-db goals list DB shows which goals are active",
            )
        if command.action == "retire":
            return [records.retire(stored)]
        assert command.request is not None
        _require_new(goals, command.request.id, option="--new-id")
        return [
            records.retire(stored),
            records.create(records.new_goal(command.request, generation)),
        ]
    return []


def _require_new(goals: list[Any], goal_id: str, option: str = "--id") -> None:
    if any(isinstance(g, dict) and g.get("id") == goal_id for g in goals):
        raise Refusal(
            "goal_exists",
            f"a goal with id {goal_id!r} already exists",
            option,
            hint="choose another id, or rvault-db goals revise --id OLD --new-id NEW to "
            "supersede it (its baseline and target never change in place)",
        )


def _generation(generation: Generation | None) -> dict[str, Any] | None:
    if generation is None:
        return None
    baseline = generation.baseline
    return {
        "eligible_talk_count": baseline["eligible_talk_count"],
        "opportunity_coverage_identity": baseline["opportunity_coverage_identity"],
        "pattern_catalog_fingerprint": generation.fingerprint,
        "pattern_scoring_schema_version": generation.scoring_schema,
        "raw_score_comparison_status": baseline["raw_score_comparison_status"],
    }
