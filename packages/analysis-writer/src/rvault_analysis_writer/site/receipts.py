"""The completed-claim receipt that authorizes a talk's rendered analysis.

persist closes a claim as ``completed`` with ``result_payload_sha256`` (the
canonical hash of the exact return) and leaves it on ``_queue_claim`` until
the talk is claimed again. A completed v1 claim has no receipt, and a talk
with no completed claim at all is historical: the site still shows its
stored analysis, labelled as not receipt-bound, and says what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_tracking_db.api import active_claim, claim_version

COMPLETED = "completed"


@dataclass(frozen=True)
class Receipt:
    run_id: str
    batch_id: str
    claim_version: int | None
    result_status: str | None
    released_at: str | None
    payload_sha256: str | None

    @property
    def bound(self) -> bool:
        """A receipt digest exists (claims v2-v5); a completed v1 claim has none."""
        return self.payload_sha256 is not None


def completed_receipt(talk: Mapping[str, Any]) -> Receipt | None:
    claim = talk.get("_queue_claim")
    if not isinstance(claim, Mapping) or claim.get("state") != COMPLETED:
        return None
    digest = claim.get("result_payload_sha256")
    return Receipt(
        run_id=str(claim.get("run_id", "")),
        batch_id=str(claim.get("batch_id", "")),
        claim_version=claim_version(claim),
        result_status=_text(claim.get("result_status")),
        released_at=_text(claim.get("released_at")),
        payload_sha256=digest if is_sha256_hex(digest) else None,
    )


def in_flight(talk: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(run_id, batch_id)`` of a live claim, else ``None``."""
    claim = active_claim(talk)
    if claim is None:
        return None
    return str(claim.get("run_id", "")), str(claim.get("batch_id", ""))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
