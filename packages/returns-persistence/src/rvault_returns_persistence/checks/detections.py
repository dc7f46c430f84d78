"""Detections and applicability assessments: which catalog entries a return judged, and how.

Each row names one catalog entry; an entry is detected once, in the lane of
its polarity, only when it is observable and owner-approved. An assessment
judges a nondetected conditional entry whose applicability gate the
inspected sources complete. Every surviving row's evidence is then checked
by the version's record rule (:func:`..sources.check_sourced_record`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from rvault_contracts.strict_json import json_path as child
from rvault_contracts.suggest import did_you_mean

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks.inspection import Inspection
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.gates import applicability_complete
from rvault_returns_persistence.vocabulary import CONFIDENCES, ENGINE_RECORD_FIELDS

LANES = (("patterns_detected", "pattern"), ("antipatterns_detected", "antipattern"))
DETECTION_KEYS = frozenset(
    {"pattern_id", "confidence", "evidence_source", "evidence", "evidence_citations"}
)
DETECTION_OPTIONAL = frozenset({"evidence_sources_used", "dimensions"})
ASSESSMENT_KEYS = frozenset(
    {"pattern_id", "result", "evidence_source", "evidence", "evidence_citations"}
)
ASSESSMENT_OPTIONAL = frozenset({"condition_id", "evidence_sources_used"})

# (ctx, record path, record, entry, inspection, gate kind): the version's evidence rule.
RecordRule = Callable[[ReturnContext, str, dict[str, Any], CatalogEntry, Inspection, str], None]
# (ctx, record path, record): the version's rule for a detection's own keys.
KeysRule = Callable[[ReturnContext, str, dict[str, Any]], None]


def record_keys(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    required: frozenset[str],
    optional: frozenset[str],
) -> None:
    """A closed record: its required keys, optional ones, nothing engine-owned or unknown."""
    for key in sorted(set(record) - required - optional):
        code = "engine_owned_field" if key in ENGINE_RECORD_FIELDS else "unknown_field"
        ctx.add(code, child(r_path, key), f"{key!r} is not a worker field of this record")
    for key in sorted(required - set(record)):
        ctx.add("missing_required_field", child(r_path, key), f"this record requires {key!r}")


def detection_keys(ctx: ReturnContext, r_path: str, record: dict[str, Any]) -> None:
    """The closed keys of a current detection."""
    record_keys(ctx, r_path, record, DETECTION_KEYS, DETECTION_OPTIONAL)


def pattern_unknown(ctx: ReturnContext, r_path: str, pid: Any) -> None:
    """``pattern_unknown`` with the closest catalog ids (ids stay exact, never normalized)."""
    nearest = did_you_mean(pid, ctx.catalog.entries) if isinstance(pid, str) else ""
    ctx.add("pattern_unknown", child(r_path, "pattern_id"), f"{pid!r} is not a catalog id{nearest}")


def check_detections(
    ctx: ReturnContext,
    po: dict[str, Any],
    path: str,
    inspection: Inspection,
    *,
    keys: KeysRule,
    evidence: RecordRule,
) -> dict[str, str]:
    """Both detection lanes; the detected pattern ids, each with its lane."""
    detected: dict[str, str] = {}
    for lane, polarity, r_path, record in _lane_records(ctx, po, path):
        keys(ctx, r_path, record)
        entry = _detected_entry(ctx, r_path, record, polarity, detected)
        if entry is None:
            continue
        detected[entry.id] = lane
        if not _judgeable(ctx, r_path, entry):
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
        gate_kind = "strong" if confidence == "strong" else "base"
        evidence(ctx, r_path, record, entry, inspection, gate_kind)
    return detected


def _lane_records(
    ctx: ReturnContext, po: dict[str, Any], path: str
) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(lane, polarity, path, record) of every detection object; shape issues on the way."""
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
            yield lane, polarity, r_path, record


def _detected_entry(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    polarity: str,
    detected: dict[str, str],
) -> CatalogEntry | None:
    """The catalog entry a detection names, once (None: unknown or already detected)."""
    entry = _named_entry(ctx, r_path, record, detected, "pattern_duplicate", "already detected")
    if entry is None:
        return None
    pid = entry.id
    if entry.type != polarity:
        ctx.add(
            "pattern_polarity_mismatch",
            child(r_path, "pattern_id"),
            f"{pid} is an {entry.type}, not a {polarity}",
        )
    return entry


def _named_entry(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    seen: dict[str, str],
    duplicate_code: str,
    duplicate_text: str,
) -> CatalogEntry | None:
    """The catalog entry a record's pattern_id names, the first time it is named."""
    pid = record.get("pattern_id")
    entry = ctx.catalog.get(pid)
    if entry is None:
        pattern_unknown(ctx, r_path, pid)
        return None
    if pid in seen:
        ctx.add(duplicate_code, child(r_path, "pattern_id"), f"{pid} is {duplicate_text}")
        return None
    return entry


def _judgeable(ctx: ReturnContext, r_path: str, entry: CatalogEntry) -> bool:
    """An entry a worker may report: observable, with an owner-approved gate."""
    if not entry.observable:
        ctx.add(
            "pattern_not_observable",
            child(r_path, "pattern_id"),
            f"{entry.id} is observable: false",
        )
        return False
    if entry.pending_owner_review:
        ctx.add(
            "pattern_gate_pending",
            child(r_path, "pattern_id"),
            f"{entry.id} has no owner-approved gate (source_gate_pending_owner_review)",
        )
        return False
    return True


def check_assessments(
    ctx: ReturnContext,
    po: dict[str, Any],
    path: str,
    inspection: Inspection,
    detected: dict[str, str],
    *,
    evidence: RecordRule,
) -> dict[str, str]:
    """applicability_assessments (current); each assessed pattern id with its result."""
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
        record_keys(ctx, r_path, record, ASSESSMENT_KEYS, ASSESSMENT_OPTIONAL)
        entry = _assessed_entry(ctx, r_path, record, inspection, detected, results)
        if entry is None:
            continue
        result = _check_result(ctx, r_path, record, entry)
        if result is None:
            continue
        results[entry.id] = result
        evidence(ctx, r_path, record, entry, inspection, "applicability")
    return results


def _assessed_entry(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    inspection: Inspection,
    detected: dict[str, str],
    results: dict[str, str],
) -> CatalogEntry | None:
    """The entry an assessment may judge: known, once, conditional, nondetected, gate complete."""
    entry = _named_entry(ctx, r_path, record, results, "applicability_duplicate", "assessed twice")
    if entry is None:
        return None
    pid = entry.id
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
        return None
    return entry


def _check_result(
    ctx: ReturnContext, r_path: str, record: dict[str, Any], entry: CatalogEntry
) -> str | None:
    """applicable (no condition) or not_applicable naming a catalog condition (None: neither)."""
    result = record.get("result")
    if result not in ("applicable", "not_applicable"):
        ctx.add(
            "applicability_result_invalid",
            child(r_path, "result"),
            "result is applicable or not_applicable",
        )
        return None
    if result == "not_applicable" and record.get("condition_id") not in entry.conditions:
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
    return result
