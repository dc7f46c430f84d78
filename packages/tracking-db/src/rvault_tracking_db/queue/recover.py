"""Recovering a stranded batch into history without rewriting its snapshot.

Recovery closes every live member of ``(run_id, batch_id)``: the claim keeps
every field it had and only gains ``released_at`` and ``release_reason``
(a historical v1 receipt is advanced to v2 on the way, the one transition the
spec allows), moves to the end of ``_queue_claim_history``, and the talk gets
back the claimable status it had before. ``reprocess_generation`` is left as
is, so the next claim increments it and captures a fresh baseline. Nothing
else is touched, which is why recovery may run on a schema-0 database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.queue.batches import epochs, live_members, mixed_batch_issues, talks_of
from rvault_tracking_db.queue.claims import RELEASE_REASON_RECOVERED, release_claim
from rvault_tracking_db.queue.issues import jp
from rvault_tracking_db.queue.timestamps import parse_aware


@dataclass
class RecoverOutcome:
    database: dict[str, Any]
    released: list[dict[str, Any]]
    changed: list[int]


def plan_recover(
    database: Mapping[str, Any], *, run_id: str, batch_id: str, released_at: str
) -> RecoverOutcome:
    members = live_members(database, run_id, batch_id)
    if not members:
        closed = [
            m
            for (r, b, _), group in epochs(database).items()
            if (r, b) == (run_id, batch_id)
            for m in group
        ]
        if closed:
            raise Refusal(
                "batch_already_closed",
                f"batch ({run_id}, {batch_id}) has no live claim left to recover",
                closed[0].path,
            )
        raise Refusal(
            "batch_not_found",
            f"no talk is claimed under ({run_id}, {batch_id})",
            jp("$", "talks"),
            hint="`rvault-db queue DB inspect` lists every live batch and epoch",
        )
    problems = mixed_batch_issues(members)
    if problems:
        raise Refusal(problems[0].code, problems[0].message, problems[0].path)
    released_moment = parse_aware(released_at)
    for member in members:
        claimed_moment = parse_aware(member.claim.get("claimed_at"))
        if released_moment is None or (
            claimed_moment is not None and released_moment < claimed_moment
        ):
            raise Refusal(
                "release_before_claim",
                "the release time precedes the claim it closes",
                jp(member.path, "claimed_at"),
            )
    talks = list(talks_of(database))
    released: list[dict[str, Any]] = []
    for member in members:
        talk = dict(talks[member.index])
        closed_claim = release_claim(
            member.claim, released_at=released_at, reason=RELEASE_REASON_RECOVERED
        )
        history = talk.get("_queue_claim_history")
        talk["_queue_claim_history"] = [
            *(history if isinstance(history, list) else []),
            closed_claim,
        ]
        del talk["_queue_claim"]
        restored = member.claim.get("previous_status")
        talk["status"] = restored
        talks[member.index] = talk
        released.append(
            {"filename": member.filename, "restored_status": restored, "claim": closed_claim}
        )
    new_database = dict(database)
    new_database["talks"] = talks
    released.sort(key=lambda item: item["filename"])
    return RecoverOutcome(new_database, released, sorted(m.index for m in members))
