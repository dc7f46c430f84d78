"""The one transition an analysis-invalidating change demands.

A reviewed metadata correction and a source-lane change both alter what a
worker would acquire or cite, so a talk that already has an analysis
(``processed`` / ``processed_partial``) moves to ``needs-reprocessing`` with a
machine-readable reason and the next ``reprocess_generation``; any other
status is left as it is.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.assessment.model import is_int

ANALYSED_STATUSES = ("processed", "processed_partial")
REPROCESS_STATUS = "needs-reprocessing"


def invalidate_analysis(
    talk: dict[str, Any], fields: list[str], reason: str, talk_path: str
) -> dict[str, Any] | None:
    """Apply the transition to ``talk`` in place; its receipt, or None when none applies."""
    if not fields or talk.get("status") not in ANALYSED_STATUSES:
        return None
    generation = talk.get("reprocess_generation", 0)
    if not is_int(generation) or generation < 0:
        raise Refusal(
            "invalid_value",
            "reprocess_generation is not a non-negative integer",
            f'{talk_path}["reprocess_generation"]',
        )
    transition = {
        "from": talk["status"],
        "to": REPROCESS_STATUS,
        "reprocess_reason": reason,
        "reprocess_generation": generation + 1,
        "invalidating_fields": sorted(set(fields)),
    }
    talk["status"] = REPROCESS_STATUS
    talk["reprocess_reason"] = reason
    talk["reprocess_generation"] = generation + 1
    return transition
