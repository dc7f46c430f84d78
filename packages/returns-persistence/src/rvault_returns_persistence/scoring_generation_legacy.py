"""Replay reasons: why a valid v1-v4 return is replay-only, by version.

Only a valid fresh v5 processed return can feed current baselines
(:mod:`.scoring_generation`). An older one carries the exact machine reasons
of its version: each names its version as replay-only; v1-v3 predate source
inspection (and may hold detections without citations, or comparison
detections whose group is ambiguous); v4 predates applicability assessments.
"""

from __future__ import annotations

from typing import Any

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.legacy_comparison import ambiguity_reasons


def _has_uncited_detection(ret: dict[str, Any]) -> bool:
    po = ret.get("pattern_observations")
    if not isinstance(po, dict):
        return False
    for lane in ("patterns_detected", "antipatterns_detected"):
        records = po.get(lane)
        if not isinstance(records, list):  # an invalid return may hold anything here
            continue
        for record in records:
            if isinstance(record, dict) and not record.get("evidence_citations"):
                return True
    return False


def reasons_v1_v3(ret: Any, version: int, catalog: Catalog | None) -> set[str]:
    """v1-v3: no source inspection; uncited detections and ambiguous groups named."""
    reasons = {f"return_schema_v{version}_replay_only", "source_inspection_absent"}
    if isinstance(ret, dict) and _has_uncited_detection(ret):
        reasons.add("legacy_uncited_detections")
    if catalog is not None:
        reasons |= ambiguity_reasons(catalog, ret)
    return reasons


def reasons_v4(ret: Any, version: int, catalog: Catalog | None) -> set[str]:
    """v4: receipted, but without applicability assessments (its groups are named)."""
    return {f"return_schema_v{version}_replay_only", "applicability_assessments_absent"}
