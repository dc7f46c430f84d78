"""The scoring-generation verdict the validator reports for each return.

Only a valid fresh v5 processed return can feed current baselines. A valid
older return is replay-only (``legacy_unbaselineable``) and carries exact,
sorted machine reasons (:data:`VERSION_REASONS`, the replay ones from
:mod:`.scoring_generation_legacy`); skipped returns are ``not_applicable``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rvault_returns_persistence import scoring_generation_legacy as legacy
from rvault_returns_persistence.catalog import Catalog

CURRENT = "current"
LEGACY = "legacy_unbaselineable"
NOT_APPLICABLE = "not_applicable"

Reasons = Callable[[Any, int, Catalog | None], set[str]]


def _current(ret: Any, version: int, catalog: Catalog | None) -> set[str]:
    """A v5 return is current by its version (validity is judged apart)."""
    return set()


# Why a return of each known version is not current (besides failing validation).
VERSION_REASONS: dict[int, Reasons] = {
    1: legacy.reasons_v1_v3,
    2: legacy.reasons_v1_v3,
    3: legacy.reasons_v1_v3,
    4: legacy.reasons_v4,
    5: _current,
}


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
    else:
        reasons |= VERSION_REASONS[version](ret, version, catalog)
    if not reasons:
        return {"status": CURRENT, "reasons": []}
    return {"status": LEGACY, "reasons": sorted(reasons)}
