"""A read-only view of every talk's queue state, claims v1-v5 and epochs.

Inspection never mutates and never normalizes: a stored claim is shown
byte-for-byte as decoded, with its version and any deep-validation issues,
and every ``(run_id, batch_id, claimed_at)`` epoch is listed with its members
across current and history locations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_tracking_db.queue.batches import epoch_issues, epochs, talks_of
from rvault_tracking_db.queue.claims import claim_issues, claim_version


def _claim_view(claim: Mapping[str, Any], filename: str) -> dict[str, Any]:
    return {
        "schema_version": claim_version(claim),
        "state": claim.get("state"),
        "run_id": claim.get("run_id"),
        "batch_id": claim.get("batch_id"),
        "claimed_at": claim.get("claimed_at"),
        "reprocess_generation": claim.get("reprocess_generation"),
        "issues": [i.to_dict() for i in claim_issues(claim, filename=filename)],
        "claim": claim,
    }


def inspect_queue(database: Mapping[str, Any]) -> dict[str, Any]:
    talks_view: list[dict[str, Any]] = []
    status_counts: dict[str, int] = {}
    for talk in talks_of(database):
        if not isinstance(talk, Mapping):
            continue
        filename = str(talk.get("filename"))
        status = talk.get("status")
        status_counts[str(status)] = status_counts.get(str(status), 0) + 1
        current = talk.get("_queue_claim")
        history = talk.get("_queue_claim_history")
        talks_view.append(
            {
                "filename": filename,
                "status": status,
                "reprocess_generation": talk.get("reprocess_generation"),
                "source_capabilities": talk.get("source_capabilities"),
                "active_claim": _claim_view(current, filename)
                if isinstance(current, Mapping)
                else None,
                "history": [
                    _claim_view(old, filename)
                    for old in (history if isinstance(history, list) else [])
                    if isinstance(old, Mapping)
                ],
            }
        )
    epoch_view = []
    for (run_id, batch_id, claimed_at), members in sorted(epochs(database).items()):
        states: dict[str, int] = {}
        for member in members:
            state = str(member.claim.get("state"))
            states[state] = states.get(state, 0) + 1
        epoch_view.append(
            {
                "run_id": run_id,
                "batch_id": batch_id,
                "claimed_at": claimed_at,
                "members": [
                    {
                        "filename": m.filename,
                        "location": m.location,
                        "state": m.claim.get("state"),
                        "schema_version": claim_version(m.claim),
                        "reprocess_generation": m.claim.get("reprocess_generation"),
                    }
                    for m in sorted(members, key=lambda m: (m.filename, m.location))
                ],
                "states": dict(sorted(states.items())),
                "issues": [i.to_dict() for i in epoch_issues(members)],
            }
        )
    return {
        "talk_count": len(talks_view),
        "status_counts": dict(sorted(status_counts.items())),
        "talks": talks_view,
        "epochs": epoch_view,
    }
