"""not_evaluable: the absence each nondetected observable entry must (or must not) claim.

The rules recompute, from the catalog gates and the inspection receipt,
which reason each nondetected entry must carry and which conditional entries
need an assessment, so a worker cannot count an unavailable entry as absent
or hide one it could judge. What a version expects is its
:class:`..patterns.PatternRules` (the current reasons: :func:`current_reason`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks.detections import pattern_unknown, record_keys
from rvault_returns_persistence.checks.inspection import Inspection
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.gates import absence_satisfied, applicability_complete

if TYPE_CHECKING:
    from rvault_returns_persistence.checks.patterns import PatternRules

ROW_KEYS = frozenset({"pattern_id", "reason_code"})
# (entry, inspection, assessments) -> the reason a nondetected entry must carry, or None.
ReasonRule = Callable[[CatalogEntry, Inspection, dict[str, str]], str | None]


def absence_reason(entry: CatalogEntry, inspection: Inspection) -> str | None:
    """Whether the inspected sources can show the entry absent (None), and if not, why."""
    if entry.positive_only:
        return "absence_not_authorized_by_catalog"
    if absence_satisfied(entry.absence_evaluable_from, inspection.capable):
        return None
    return "missing_required_source_coverage"


def current_reason(
    entry: CatalogEntry, inspection: Inspection, assessments: dict[str, str]
) -> str | None:
    """The reason a nondetected observable entry must carry (None: undetected or
    not_applicable): a conditional entry is first judged by its applicability gate."""
    if entry.pending_owner_review:
        return "source_gate_pending_owner_review"
    if entry.conditional:
        if not applicability_complete(entry.applicability_evaluable_from, inspection.capable):
            return "missing_applicability_source_coverage"
        if assessments.get(entry.id) == "not_applicable":
            return None
    return absence_reason(entry, inspection)


def needs_assessment(
    entry: CatalogEntry, inspection: Inspection, assessments: dict[str, str]
) -> bool:
    """A conditional entry the sources let the worker assess, left unassessed (current)."""
    return (
        entry.conditional
        and not entry.pending_owner_review
        and entry.id not in assessments
        and applicability_complete(entry.applicability_evaluable_from, inspection.capable)
    )


def check_not_evaluable(
    ctx: ReturnContext,
    po: dict[str, Any],
    path: str,
    inspection: Inspection,
    outcomes: tuple[dict[str, str], dict[str, str]],
    rules: PatternRules,
) -> None:
    """The rows the worker listed, then every entry whose absence row is missing.

    ``outcomes`` is (detected pattern id -> lane, assessed pattern id -> result).
    """
    records = po.get("not_evaluable")
    n_path = child(path, "not_evaluable")
    if "not_evaluable" not in po:
        return
    if not isinstance(records, list):
        ctx.add("wrong_type", n_path, "not_evaluable is an array")
        return
    rows: dict[str, str] = {}
    for index, record in enumerate(records):
        _check_row(ctx, child(n_path, index), record, inspection, outcomes, rules, rows)
    _check_coverage(ctx, path, inspection, outcomes, rules, rows)


def _check_row(
    ctx: ReturnContext,
    r_path: str,
    record: Any,
    inspection: Inspection,
    outcomes: tuple[dict[str, str], dict[str, str]],
    rules: PatternRules,
    rows: dict[str, str],
) -> None:
    """One row: a known observable entry, listed once, not detected, with its expected reason."""
    detected, assessments = outcomes
    if not isinstance(record, dict):
        ctx.add("wrong_type", r_path, "a not_evaluable row is an object")
        return
    record_keys(ctx, r_path, record, ROW_KEYS, frozenset())
    pid = record.get("pattern_id")
    entry = ctx.catalog.get(pid)
    if entry is None:
        pattern_unknown(ctx, r_path, pid)
        return
    if not entry.observable:
        ctx.add(
            "pattern_not_observable", child(r_path, "pattern_id"), f"{pid} is observable: false"
        )
        return
    if pid in rows:
        ctx.add("not_evaluable_duplicate", child(r_path, "pattern_id"), f"{pid} is listed twice")
        return
    reason = record.get("reason_code")
    rows[pid] = reason if isinstance(reason, str) else ""
    if pid in detected:
        why = _lane_conflict(pid, detected[pid], r_path)
        ctx.add("pattern_in_multiple_lanes", child(r_path, "pattern_id"), why)
        return
    if reason not in rules.reasons:
        ctx.add(
            "not_evaluable_reason_unknown",
            child(r_path, "reason_code"),
            f"reason_code must be one of {list(rules.reasons)}",
        )
        return
    expected = rules.expected_reason(entry, inspection, assessments)
    if expected is None:
        ctx.add(
            "not_evaluable_unexpected",
            r_path,
            f"{pid} is evaluable from the inspected sources; "
            "report it detected or leave it undetected",
        )
    elif reason != expected:
        ctx.add(
            "not_evaluable_reason_mismatch",
            child(r_path, "reason_code"),
            f"{pid} requires reason_code {expected}",
        )


def _check_coverage(
    ctx: ReturnContext,
    path: str,
    inspection: Inspection,
    outcomes: tuple[dict[str, str], dict[str, str]],
    rules: PatternRules,
    rows: dict[str, str],
) -> None:
    """Each nondetected observable entry is assessed where it must be, or listed with its reason."""
    detected, assessments = outcomes
    for entry in ctx.catalog.observable():
        if entry.id in detected:
            continue
        if rules.needs_assessment(entry, inspection, assessments):
            ctx.add(
                "applicability_missing",
                child(path, "applicability_assessments"),
                f"{entry.id} needs exactly one applicability "
                "assessment (its applicability gate is complete)",
            )
            continue
        if assessments.get(entry.id) == "applicable":
            # An applicable assessment already says why; the scaffold cannot know the result,
            # so the absence row is optional here and persistence derives it when omitted.
            continue
        expected = rules.expected_reason(entry, inspection, assessments)
        if entry.id not in rows and expected is not None:
            ctx.add(
                "not_evaluable_missing",
                child(path, "not_evaluable"),
                f"{entry.id} must be listed with reason_code {expected}; it cannot count as absent",
            )


def _lane_conflict(pid: str, lane: str, r_path: str) -> str:
    """Which of the two rows to delete: the not_evaluable one.

    A pattern sits in one lane. A not_evaluable reason is about absence (the
    inspected sources cannot show the pattern is missing); a detection is
    positive evidence whose citations are verified on their own, so it
    needs no absence gate. The scaffold pre-fills not_evaluable rows before
    anything is detected, so the row to delete is that one.
    """
    return (
        f"{pid} is detected in {lane} and also listed not_evaluable; a pattern sits in one "
        f"lane: remove this not_evaluable row ({r_path}) to keep the detection (its evidence "
        "needs no absence gate), or remove the detection if it does not hold"
    )
