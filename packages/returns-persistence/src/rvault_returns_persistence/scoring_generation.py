"""The scoring-generation verdict the validator reports for each return.

Only a valid fresh v5 processed return can feed current baselines. A valid
older return is replay-only (``legacy_unbaselineable``) and carries exact,
sorted machine reasons; skipped returns are ``not_applicable``.
"""

from __future__ import annotations

from typing import Any

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.legacy_comparison import ambiguity_reasons

CURRENT = "current"
LEGACY = "legacy_unbaselineable"
NOT_APPLICABLE = "not_applicable"


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


def generation(
    ret: Any, version: int | None, status: Any, valid: bool, catalog: Catalog | None = None
) -> dict[str, Any]:
    if isinstance(status, str) and status.startswith("skipped_"):
        return {"status": NOT_APPLICABLE, "reasons": []}
    reasons: set[str] = set()
    if not valid:
        reasons.add("return_validation_failed")
    if version is None:
        reasons.add("return_schema_version_unknown")
    elif version < 5:
        reasons.add(f"return_schema_v{version}_replay_only")
        if version <= 3:
            reasons.add("source_inspection_absent")
            if isinstance(ret, dict) and _has_uncited_detection(ret):
                reasons.add("legacy_uncited_detections")
        if version == 4:
            reasons.add("applicability_assessments_absent")
        if catalog is not None:
            reasons |= ambiguity_reasons(catalog, ret, version)
    if not reasons:
        return {"status": CURRENT, "reasons": []}
    return {"status": LEGACY, "reasons": sorted(reasons)}
