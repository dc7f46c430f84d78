"""Replay rules: what worker returns v1-v4 were held to where they differ from v5.

Older returns are still validated and persisted (replay-only: a v1-v4 result
never enters a current baseline), each by the contract of its own version.
Where a historical version checked less, or differently, the rule lives
here; ``protocol`` lists which rules each version runs, so the current rules
never ask which version they judge. What changed, by version:

- v1: queue_claim optional; no required blocks, no substantive prose;
  structured_data and verbatim_examples are only objects; no
  pattern_observations rules.
- v2, v3: the required blocks without catalog_feedback; pattern_observations
  predates source receipts, gates and citations (:func:`check_observations_v2_v3`).
- v4: receipts, gates and citations, but no applicability assessments, no
  ``missing_applicability_source_coverage`` reason and unlocated quotes
  (:data:`V4_PATTERNS`).
- v1-v4: ``adherence_assessment`` is free text (:func:`check_adherence_text`),
  and the worker-return schema of the version backs the rules up
  (:func:`schema_backstop`); for v5 the rules are proven at least as strict as
  the schema (tests/test_validate_fuzz.py).
"""

from __future__ import annotations

from typing import Any

from rvault_contracts import schemas
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import CatalogEntry
from rvault_returns_persistence.checks.citations import check_quote
from rvault_returns_persistence.checks.detections import check_detections
from rvault_returns_persistence.checks.envelope import check_required_blocks
from rvault_returns_persistence.checks.inspection import Inspection, declared_sources
from rvault_returns_persistence.checks.not_evaluable import absence_reason
from rvault_returns_persistence.checks.patterns import (
    BASE_KEYS,
    PatternRules,
    check_pattern_observations,
    check_score,
    check_untrusted_static,
    observations_block,
)
from rvault_returns_persistence.checks.sources import check_evidence_text, known_source
from rvault_returns_persistence.checks.structured import structured_object, verbatim_object
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import (
    COMPARISON,
    NOT_EVALUABLE_REASONS,
    REQUIRED_PROCESSED,
)

RETURN_ARTIFACT = "worker-return"
V2_V3_REQUIRED = frozenset({"patterns_detected", "antipatterns_detected", "pattern_score"})


def check_required_v2_v4(ctx: ReturnContext) -> None:
    """The processed blocks before catalog_feedback joined them in v5."""
    check_required_blocks(ctx, REQUIRED_PROCESSED)


def check_adherence_text(ctx: ReturnContext) -> None:
    """adherence_assessment is a string, and its no-assessment sentinel exactly ""."""
    if "adherence_assessment" not in ctx.ret:
        return
    value = ctx.ret["adherence_assessment"]
    path = child(ctx.path, "adherence_assessment")
    if not isinstance(value, str):
        ctx.add("wrong_type", path, "adherence_assessment must be a string")
    elif value and not value.strip():
        ctx.add(
            "adherence_assessment_whitespace",
            path,
            'the no-assessment sentinel is exactly "", never whitespace',
        )


def check_structured_v1(ctx: ReturnContext) -> None:
    """v1 structured_data: any object (its additive merge predates snapshot policies)."""
    structured_object(ctx)


def check_verbatim_v1(ctx: ReturnContext) -> None:
    """v1 verbatim_examples: any object."""
    verbatim_object(ctx)


def check_observations_v2_v3(ctx: ReturnContext) -> None:
    """pattern_observations before receipts: declared sources, detections, score.

    Kept replayable, never current: a detection needs a known source and
    evidence text, its citations only to be an array; not_evaluable only to be
    an array.
    """
    po = observations_block(ctx)
    if po is None:
        return
    path = child(ctx.path, "pattern_observations")
    for key in sorted(V2_V3_REQUIRED - set(po)):
        ctx.add(
            "missing_required_field", child(path, key), f"pattern_observations requires {key!r}"
        )
    inspection = declared_sources(ctx, po, path)
    inspection.inspected = inspection.declared - {COMPARISON}
    check_untrusted_static(ctx, path, inspection)
    check_detections(ctx, po, path, inspection, keys=_open_record, evidence=_unreceipted_evidence)
    if "not_evaluable" in po and not isinstance(po["not_evaluable"], list):
        ctx.add("wrong_type", child(path, "not_evaluable"), "not_evaluable is an array")
    check_score(ctx, po, path)


def _open_record(ctx: ReturnContext, r_path: str, record: dict[str, Any]) -> None:
    """v2/v3 detections were open records: any keys."""


def _unreceipted_evidence(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    gate_kind: str,
) -> None:
    """v2/v3 evidence: a known source and an explanation; citations, if any, an array."""
    if known_source(ctx, r_path, record) is None:
        return
    check_evidence_text(ctx, r_path, record)
    if not isinstance(record.get("evidence_citations", []), list):
        ctx.add("wrong_type", child(r_path, "evidence_citations"), "evidence_citations is an array")


def v4_reason(
    entry: CatalogEntry, inspection: Inspection, assessments: dict[str, str]
) -> str | None:
    """The reason a nondetected v4 entry carries: v4 knew no applicability gate."""
    if entry.pending_owner_review:
        return "source_gate_pending_owner_review"
    return absence_reason(entry, inspection)


def _never_assessed(entry: CatalogEntry, inspection: Inspection, assessed: dict[str, str]) -> bool:
    return False


def _no_assessments(*_: Any, **__: Any) -> dict[str, str]:
    """v4 has no applicability_assessments."""
    return {}


V4_PATTERNS = PatternRules(
    keys=BASE_KEYS | {"source_inspection"},
    reasons=tuple(r for r in NOT_EVALUABLE_REASONS if r != "missing_applicability_source_coverage"),
    expected_reason=v4_reason,
    needs_assessment=_never_assessed,
    assess=_no_assessments,
    quote=check_quote,
)


def check_observations_v4(ctx: ReturnContext) -> None:
    """pattern_observations under the v4 rules (:data:`V4_PATTERNS`)."""
    check_pattern_observations(ctx, V4_PATTERNS)


def schema_backstop(ctx: ReturnContext) -> None:
    """Report contract violations the rules did not already name (same paths).

    Replay versions only: for v5 the rules are proven at least as strict as the schema
    (tests/test_validate_fuzz.py), and skipping it keeps the gate inside its start-up
    budget. It runs last, so it knows every path the rules named.
    """
    covered = [i.path for i in ctx.issues.items]
    for problem in schemas.schema_issues(RETURN_ARTIFACT, ctx.version, ctx.ret):
        path = ctx.path + problem.path[1:]
        if any(path.startswith(p) or p.startswith(path) for p in covered):
            continue
        ctx.add("schema_violation", path, f"{problem.validator}: {problem.message}")
        covered.append(path)
