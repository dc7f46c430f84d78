"""pattern_observations: detections, applicability, not_evaluable, score.

Every observable catalog entry ends in exactly one outcome. The worker
reports detections, applicability assessments and not_evaluable rows; the
rest are undetected. The protocol, in order: the block's closed keys, the
inspection receipt (:mod:`.inspection`), the detections and assessments
(:mod:`.detections`, their evidence: :mod:`.sources`), the absence rows
(:mod:`.not_evaluable`), the score. :data:`CURRENT` is the v5 contract; the
replay versions' rules are in :mod:`.legacy`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.checks.citations import QuoteRule, check_located_quote
from rvault_returns_persistence.checks.detections import (
    check_assessments,
    check_detections,
    detection_keys,
)
from rvault_returns_persistence.checks.inspection import Inspection, check_inspection
from rvault_returns_persistence.checks.not_evaluable import (
    ReasonRule,
    check_not_evaluable,
    current_reason,
    needs_assessment,
)
from rvault_returns_persistence.checks.sources import check_sourced_record
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import (
    ENGINE_PATTERN_OBSERVATION_FIELDS,
    NOT_EVALUABLE_REASONS,
)

BASE_KEYS = frozenset(
    {
        "evidence_sources",
        "patterns_detected",
        "antipatterns_detected",
        "not_evaluable",
        "pattern_score",
    }
)
SCORE_KEYS = frozenset({"patterns_used", "antipatterns_detected", "score"})
# (ctx, block, block path, inspection, detected, *, evidence) -> assessed id -> result.
AssessRule = Callable[..., dict[str, str]]


@dataclass(frozen=True)
class PatternRules:
    """What a receipted return version (v4, v5) allows in pattern_observations."""

    keys: frozenset[str]  # the block's closed keys, all required
    reasons: tuple[str, ...]  # the not_evaluable reason codes
    expected_reason: ReasonRule
    needs_assessment: Callable[[Any, Inspection, dict[str, str]], bool]
    assess: AssessRule
    quote: QuoteRule


CURRENT = PatternRules(
    keys=BASE_KEYS | {"source_inspection", "applicability_assessments"},
    reasons=NOT_EVALUABLE_REASONS,
    expected_reason=current_reason,
    needs_assessment=needs_assessment,
    assess=check_assessments,
    quote=check_located_quote,
)


def observations_block(ctx: ReturnContext) -> dict[str, Any] | None:
    """pattern_observations when the return carries it as an object (else None)."""
    po = ctx.ret.get("pattern_observations")
    if "pattern_observations" not in ctx.ret:
        return None
    if not isinstance(po, dict):
        ctx.add(
            "wrong_type",
            child(ctx.path, "pattern_observations"),
            "pattern_observations must be an object",
        )
        return None
    return po


def check_pattern_observations(ctx: ReturnContext, rules: PatternRules = CURRENT) -> None:
    """The block's keys, receipts, outcome rows and score under ``rules``."""
    po = observations_block(ctx)
    if po is None:
        return
    path = child(ctx.path, "pattern_observations")
    _check_keys(ctx, po, path, rules)
    inspection = check_inspection(ctx, po, path)
    check_untrusted_static(ctx, path, inspection)
    evidence = partial(check_sourced_record, quote=rules.quote)
    detected = check_detections(ctx, po, path, inspection, keys=detection_keys, evidence=evidence)
    assessed = rules.assess(ctx, po, path, inspection, detected, evidence=evidence)
    check_not_evaluable(ctx, po, path, inspection, (detected, assessed), rules)
    check_score(ctx, po, path)


def _check_keys(ctx: ReturnContext, po: dict[str, Any], path: str, rules: PatternRules) -> None:
    """Exactly the version's keys: each required, none engine-owned or unknown."""
    for key in sorted(rules.keys - set(po)):
        ctx.add(
            "missing_required_field", child(path, key), f"pattern_observations requires {key!r}"
        )
    for key in sorted(set(po) - rules.keys):
        code = "engine_owned_field" if key in ENGINE_PATTERN_OBSERVATION_FIELDS else "unknown_field"
        ctx.add(code, child(path, key), f"{key!r} is not a worker field of return v{ctx.version}")


def check_untrusted_static(ctx: ReturnContext, path: str, inspection: Inspection) -> None:
    """An untrusted video manifest cannot stand for the authored slides."""
    if ctx.untrusted_video and "static_slides" in inspection.declared:
        ctx.add(
            "untrusted_manifest_static_slides",
            child(path, "evidence_sources"),
            "an untrusted video-extraction manifest is context only; do not list static_slides",
        )


def check_score(ctx: ReturnContext, po: dict[str, Any], path: str) -> None:
    """pattern_score is the count of detections, patterns minus antipatterns."""
    score = po.get("pattern_score")
    s_path = child(path, "pattern_score")
    if "pattern_score" not in po:
        return
    if (
        not isinstance(score, dict)
        or set(score) != SCORE_KEYS
        or not all(is_int(score[k]) for k in SCORE_KEYS)
    ):
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
