"""pattern_observations: detections, applicability, not_evaluable, score.

Every observable catalog entry ends in exactly one outcome. The worker
reports detections, applicability assessments and not_evaluable rows; the
rest are undetected. This module recomputes, from the catalog gates and the
inspection receipt, which not_evaluable reason each nondetected entry must
carry and which conditional entries need an assessment, so a worker cannot
count an unavailable entry as absent or hide one it could judge.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child
from rvault_contracts.suggest import did_you_mean

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks_citations import check_citation, locates
from rvault_returns_persistence.checks_inspection import (
    Inspection,
    check_inspection,
    is_source_group,
)
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.gates import (
    absence_satisfied,
    applicability_complete,
    group_satisfies,
    source_satisfies,
)
from rvault_returns_persistence.vocabulary import (
    COMPARISON,
    CONFIDENCES,
    ENGINE_PATTERN_OBSERVATION_FIELDS,
    ENGINE_RECORD_FIELDS,
    EVIDENCE_SOURCE_NAMES,
    NOT_EVALUABLE_REASONS,
)

LANES = (("patterns_detected", "pattern"), ("antipatterns_detected", "antipattern"))
DETECTION_KEYS = frozenset(
    {"pattern_id", "confidence", "evidence_source", "evidence", "evidence_citations"}
)
DETECTION_OPTIONAL = frozenset({"evidence_sources_used", "dimensions"})
ASSESSMENT_KEYS = frozenset(
    {"pattern_id", "result", "evidence_source", "evidence", "evidence_citations"}
)
ASSESSMENT_OPTIONAL = frozenset({"condition_id", "evidence_sources_used"})


def _allowed_keys(version: int) -> set[str]:
    keys = {
        "evidence_sources",
        "patterns_detected",
        "antipatterns_detected",
        "not_evaluable",
        "pattern_score",
    }
    if version >= 4:
        keys.add("source_inspection")
    if version == 5:
        keys.add("applicability_assessments")
    return keys


def check_pattern_observations(ctx: ReturnContext) -> None:
    path = child(ctx.path, "pattern_observations")
    po = ctx.ret.get("pattern_observations")
    if "pattern_observations" not in ctx.ret or ctx.version == 1:
        return
    if not isinstance(po, dict):
        ctx.add("wrong_type", path, "pattern_observations must be an object")
        return
    allowed = _allowed_keys(ctx.version)
    required = (
        allowed
        if ctx.version >= 4
        else {"patterns_detected", "antipatterns_detected", "pattern_score"}
    )
    for key in sorted(required - set(po)):
        ctx.add(
            "missing_required_field", child(path, key), f"pattern_observations requires {key!r}"
        )
    if ctx.version >= 4:
        for key in sorted(set(po) - allowed):
            code = (
                "engine_owned_field"
                if key in ENGINE_PATTERN_OBSERVATION_FIELDS
                else "unknown_field"
            )
            ctx.add(
                code, child(path, key), f"{key!r} is not a worker field of return v{ctx.version}"
            )
    inspection = check_inspection(ctx, po, path)
    if ctx.untrusted_video and "static_slides" in inspection.declared:
        ctx.add(
            "untrusted_manifest_static_slides",
            child(path, "evidence_sources"),
            "an untrusted video-extraction manifest is context only; do not list static_slides",
        )
    detected = _check_detections(ctx, po, path, inspection)
    assessments = (
        _check_assessments(ctx, po, path, inspection, detected) if ctx.version == 5 else {}
    )
    _check_not_evaluable(ctx, po, path, inspection, detected, assessments)
    _check_score(ctx, po, path)


def _record_keys(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    required: frozenset[str],
    optional: frozenset[str],
) -> None:
    for key in sorted(set(record) - required - optional):
        code = "engine_owned_field" if key in ENGINE_RECORD_FIELDS else "unknown_field"
        ctx.add(code, child(r_path, key), f"{key!r} is not a worker field of this record")
    for key in sorted(required - set(record)):
        ctx.add("missing_required_field", child(r_path, key), f"this record requires {key!r}")


def _check_sourced_record(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    gate_kind: str,
) -> None:
    """evidence_source gate, comparison proof and citations of a detection or assessment."""
    if gate_kind == "applicability":
        gate = entry.applicability_evaluable_from
    elif gate_kind == "strong":
        gate = entry.strong_evaluable_from
    else:
        gate = entry.evaluable_from
    source = record.get("evidence_source")
    s_path = child(r_path, "evidence_source")
    used = record.get("evidence_sources_used")
    group: frozenset[str] | None = None
    strict = ctx.version >= 4
    if source not in EVIDENCE_SOURCE_NAMES:
        ctx.add("evidence_source_unknown", s_path, f"{source!r} is not an evidence source")
        return
    if not strict:
        # v2/v3 replay predates source gates and citations: keep it replayable, never current.
        if not is_text(record.get("evidence")):
            ctx.add(
                "evidence_empty",
                child(r_path, "evidence"),
                "evidence is a concise non-empty explanation",
            )
        if not isinstance(record.get("evidence_citations", []), list):
            ctx.add(
                "wrong_type", child(r_path, "evidence_citations"), "evidence_citations is an array"
            )
        return
    if source == COMPARISON:
        if "evidence_sources_used" not in record:
            if strict:
                ctx.add(
                    "comparison_sources_used_required",
                    child(r_path, "evidence_sources_used"),
                    "a source_comparison record names its exact qualifying group",
                )
        elif not is_source_group(used):
            ctx.add(
                "comparison_group_invalid",
                child(r_path, "evidence_sources_used"),
                "evidence_sources_used is two or more distinct underlying sources",
            )
        else:
            group = frozenset(used)
            if group not in entry.comparison_groups:
                ctx.add(
                    "comparison_group_not_qualifying",
                    child(r_path, "evidence_sources_used"),
                    f"{entry.id} qualifies only {[sorted(g) for g in entry.comparison_groups]}",
                )
            elif strict and group not in inspection.groups:
                ctx.add(
                    "comparison_not_inspected",
                    child(r_path, "evidence_sources_used"),
                    "no source_comparison receipt names this group",
                )
            elif not group_satisfies(gate, group):
                ctx.add(
                    "evidence_source_gate_unsatisfied",
                    s_path,
                    f"the group does not satisfy the {gate_kind} gate",
                )
    else:
        if "evidence_sources_used" in record:
            ctx.add(
                "comparison_sources_used_forbidden",
                child(r_path, "evidence_sources_used"),
                "evidence_sources_used belongs only on source_comparison records",
            )
        if strict and source not in inspection.inspected:
            ctx.add("evidence_source_not_inspected", s_path, f"{source} has no inspection receipt")
        elif not source_satisfies(
            gate, source, inspection.inspected if strict else inspection.declared
        ):
            ctx.add(
                "evidence_source_gate_unsatisfied",
                s_path,
                f"{source} does not satisfy the {gate_kind} gate of {entry.id}",
            )
    if not is_text(record.get("evidence")):
        ctx.add(
            "evidence_empty",
            child(r_path, "evidence"),
            "evidence is a concise non-empty explanation",
        )
    citations = record.get("evidence_citations")
    c_path = child(r_path, "evidence_citations")
    if not isinstance(citations, list):
        ctx.add("wrong_type", c_path, "evidence_citations is an array")
        return
    if not citations:
        if strict:
            ctx.add("citations_required", c_path, "every new record needs at least one citation")
        return
    if not strict:
        return
    cited = [
        c
        for i, cit in enumerate(citations)
        if (c := check_citation(ctx, child(c_path, i), cit, entry, inspection))
    ]
    if source == COMPARISON:
        for member in sorted(group or ()):
            if not locates(cited, member):
                ctx.add(
                    "comparison_member_uncited", c_path, f"no citation locates proof from {member}"
                )
    elif not locates(cited, source):
        ctx.add(
            "gate_source_citation_missing",
            c_path,
            f"no citation locates proof from the gate source {source}",
        )


def _check_detections(
    ctx: ReturnContext, po: dict[str, Any], path: str, inspection: Inspection
) -> dict[str, str]:
    detected: dict[str, str] = {}
    for lane, polarity in LANES:
        records = po.get(lane)
        l_path = child(path, lane)
        if lane not in po:
            continue
        if not isinstance(records, list):
            ctx.add("wrong_type", l_path, f"{lane} is an array")
            continue
        for index, record in enumerate(records):
            r_path = child(l_path, index)
            if not isinstance(record, dict):
                ctx.add("wrong_type", r_path, "a detection is an object")
                continue
            if ctx.version >= 4:
                _record_keys(ctx, r_path, record, DETECTION_KEYS, DETECTION_OPTIONAL)
            pid = record.get("pattern_id")
            entry = ctx.catalog.get(pid)
            if entry is None:
                _pattern_unknown(ctx, r_path, pid)
                continue
            if pid in detected:
                ctx.add(
                    "pattern_duplicate", child(r_path, "pattern_id"), f"{pid} is already detected"
                )
                continue
            detected[pid] = lane
            if entry.type != polarity:
                ctx.add(
                    "pattern_polarity_mismatch",
                    child(r_path, "pattern_id"),
                    f"{pid} is an {entry.type}, not a {polarity}",
                )
            if not entry.observable:
                ctx.add(
                    "pattern_not_observable",
                    child(r_path, "pattern_id"),
                    f"{pid} is observable: false",
                )
                continue
            if entry.pending_owner_review:
                ctx.add(
                    "pattern_gate_pending",
                    child(r_path, "pattern_id"),
                    f"{pid} has no owner-approved gate (source_gate_pending_owner_review)",
                )
                continue
            confidence = record.get("confidence")
            if confidence not in CONFIDENCES:
                ctx.add(
                    "confidence_invalid",
                    child(r_path, "confidence"),
                    "confidence is strong, moderate or weak",
                )
            if "dimensions" in record and record["dimensions"] != list(entry.dimensions):
                ctx.add(
                    "dimensions_mismatch",
                    child(r_path, "dimensions"),
                    "dimensions are catalog-owned; omit them or copy them in catalog order",
                )
            _check_sourced_record(
                ctx,
                r_path,
                record,
                entry,
                inspection,
                "strong" if confidence == "strong" else "base",
            )
    return detected


def _check_assessments(
    ctx: ReturnContext,
    po: dict[str, Any],
    path: str,
    inspection: Inspection,
    detected: dict[str, str],
) -> dict[str, str]:
    results: dict[str, str] = {}
    records = po.get("applicability_assessments")
    a_path = child(path, "applicability_assessments")
    if not isinstance(records, list):
        if "applicability_assessments" in po:
            ctx.add("wrong_type", a_path, "applicability_assessments is an array")
        records = []
    for index, record in enumerate(records):
        r_path = child(a_path, index)
        if not isinstance(record, dict):
            ctx.add("wrong_type", r_path, "an assessment is an object")
            continue
        _record_keys(ctx, r_path, record, ASSESSMENT_KEYS, ASSESSMENT_OPTIONAL)
        pid = record.get("pattern_id")
        entry = ctx.catalog.get(pid)
        if entry is None:
            _pattern_unknown(ctx, r_path, pid)
            continue
        if pid in results:
            ctx.add(
                "applicability_duplicate", child(r_path, "pattern_id"), f"{pid} is assessed twice"
            )
            continue
        if (
            not entry.observable
            or entry.pending_owner_review
            or not entry.conditional
            or pid in detected
            or not applicability_complete(entry.applicability_evaluable_from, inspection.capable)
        ):
            ctx.add(
                "applicability_unexpected",
                child(r_path, "pattern_id"),
                "assess only nondetected conditional entries whose applicability gate is complete",
            )
            continue
        result = record.get("result")
        condition = record.get("condition_id")
        if result not in ("applicable", "not_applicable"):
            ctx.add(
                "applicability_result_invalid",
                child(r_path, "result"),
                "result is applicable or not_applicable",
            )
            continue
        if result == "not_applicable" and condition not in entry.conditions:
            ctx.add(
                "applicability_condition_unknown",
                child(r_path, "condition_id"),
                f"a not_applicable result names one of {list(entry.conditions)}",
            )
        if result == "applicable" and "condition_id" in record:
            ctx.add(
                "applicability_condition_forbidden",
                child(r_path, "condition_id"),
                "an applicable result names no condition",
            )
        results[pid] = result
        _check_sourced_record(ctx, r_path, record, entry, inspection, "applicability")
    return results


def expected_reason(
    entry: CatalogEntry, version: int, inspection: Inspection, assessments: dict[str, str]
) -> str | None:
    """The not_evaluable reason a nondetected observable "
    "entry must carry (None: undetected or not_applicable)."""
    if entry.pending_owner_review:
        return "source_gate_pending_owner_review"
    if version == 5 and entry.conditional:
        if not applicability_complete(entry.applicability_evaluable_from, inspection.capable):
            return "missing_applicability_source_coverage"
        if assessments.get(entry.id) == "not_applicable":
            return None
    if entry.positive_only:
        return "absence_not_authorized_by_catalog"
    if absence_satisfied(entry.absence_evaluable_from, inspection.capable):
        return None
    return "missing_required_source_coverage"


def _check_not_evaluable(
    ctx: ReturnContext,
    po: dict[str, Any],
    path: str,
    inspection: Inspection,
    detected: dict[str, str],
    assessments: dict[str, str],
) -> None:
    records = po.get("not_evaluable")
    n_path = child(path, "not_evaluable")
    if "not_evaluable" not in po:
        return
    if not isinstance(records, list):
        ctx.add("wrong_type", n_path, "not_evaluable is an array")
        return
    if ctx.version < 4:
        return
    reasons = (
        NOT_EVALUABLE_REASONS
        if ctx.version == 5
        else NOT_EVALUABLE_REASONS[:2] + NOT_EVALUABLE_REASONS[3:]
    )
    rows: dict[str, str] = {}
    for index, record in enumerate(records):
        r_path = child(n_path, index)
        if not isinstance(record, dict):
            ctx.add("wrong_type", r_path, "a not_evaluable row is an object")
            continue
        _record_keys(ctx, r_path, record, frozenset({"pattern_id", "reason_code"}), frozenset())
        pid = record.get("pattern_id")
        entry = ctx.catalog.get(pid)
        if entry is None:
            _pattern_unknown(ctx, r_path, pid)
            continue
        if not entry.observable:
            ctx.add(
                "pattern_not_observable", child(r_path, "pattern_id"), f"{pid} is observable: false"
            )
            continue
        if pid in rows:
            ctx.add(
                "not_evaluable_duplicate", child(r_path, "pattern_id"), f"{pid} is listed twice"
            )
            continue
        reason = record.get("reason_code")
        rows[pid] = reason if isinstance(reason, str) else ""
        if pid in detected:
            why = _lane_conflict(pid, detected[pid], r_path)
            ctx.add("pattern_in_multiple_lanes", child(r_path, "pattern_id"), why)
            continue
        if reason not in reasons:
            ctx.add(
                "not_evaluable_reason_unknown",
                child(r_path, "reason_code"),
                f"reason_code must be one of {list(reasons)}",
            )
            continue
        expected = expected_reason(entry, ctx.version, inspection, assessments)
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
    for entry in ctx.catalog.observable():
        if entry.id in detected:
            continue
        unassessed = (
            ctx.version == 5
            and entry.conditional
            and not entry.pending_owner_review
            and entry.id not in assessments
            and applicability_complete(entry.applicability_evaluable_from, inspection.capable)
        )
        if unassessed:
            ctx.add(
                "applicability_missing",
                child(path, "applicability_assessments"),
                f"{entry.id} needs exactly one applicability "
                "assessment (its applicability gate is complete)",
            )
            continue
        expected = expected_reason(entry, ctx.version, inspection, assessments)
        if ctx.version == 5 and assessments.get(entry.id) == "applicable":
            # An applicable assessment already says why; the scaffold cannot know the result,
            # so the absence row is optional here and persistence derives it when omitted.
            continue
        if entry.id not in rows and expected is not None:
            ctx.add(
                "not_evaluable_missing",
                n_path,
                f"{entry.id} must be listed with reason_code {expected}; it cannot count as absent",
            )


def _check_score(ctx: ReturnContext, po: dict[str, Any], path: str) -> None:
    score = po.get("pattern_score")
    s_path = child(path, "pattern_score")
    if "pattern_score" not in po:
        return
    keys = {"patterns_used", "antipatterns_detected", "score"}
    if not isinstance(score, dict) or set(score) != keys or not all(is_int(score[k]) for k in keys):
        ctx.add(
            "pattern_score_shape",
            s_path,
            "pattern_score is exactly {patterns_used, antipatterns_detected, score} integers",
        )
        return
    patterns = po.get("patterns_detected")
    antipatterns = po.get("antipatterns_detected")
    p = len(patterns) if isinstance(patterns, list) else 0
    a = len(antipatterns) if isinstance(antipatterns, list) else 0
    if (
        score["patterns_used"] != p
        or score["antipatterns_detected"] != a
        or score["score"] != p - a
    ):
        ctx.add(
            "pattern_score_mismatch",
            s_path,
            f"expected patterns_used {p}, antipatterns_detected {a}, score {p - a}",
        )


def _pattern_unknown(ctx: ReturnContext, r_path: str, pid: Any) -> None:
    """``pattern_unknown`` with the closest catalog ids (ids stay exact, never normalized)."""
    nearest = did_you_mean(pid, ctx.catalog.entries) if isinstance(pid, str) else ""
    ctx.add("pattern_unknown", child(r_path, "pattern_id"), f"{pid!r} is not a catalog id{nearest}")


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
