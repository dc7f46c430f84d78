"""Recovering a stranded batch into history without rewriting its snapshot.

Recovery closes every live member of ``(run_id, batch_id)``: the claim keeps
every field it had and only gains ``released_at`` and ``release_reason``
(a historical v1 receipt is advanced to v2 on the way, the one transition the
spec allows), moves to the end of ``_queue_claim_history``, and the talk gets
back the claimable status it had before. ``reprocess_generation`` is left as
is, so the next claim increments it and captures a fresh baseline. Nothing
else is touched, which is why recovery may run on a schema-0 database.

It is decided on a :class:`RecoverView` given the talks one at a time (the
batch's claims, whole only the talks holding a live member: the few it
changes), so ``queue recover`` decides the same way on a decoded database
(:func:`plan_recover`) and as the read streams the talks
(:mod:`.streamed_recover`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.queue.batches import Member, mixed_batch_issues, talk_members, talks_of
from rvault_tracking_db.queue.claims import (
    RELEASE_REASON_RECOVERED,
    STATE_CLAIMED,
    release_claim,
)
from rvault_tracking_db.queue.issues import jp
from rvault_tracking_db.queue.timestamps import parse_aware


@dataclass
class RecoverOutcome:
    database: dict[str, Any] | None  # None for a streamed plan: see updated
    released: list[dict[str, Any]]
    changed: list[int]
    updated: dict[int, dict[str, Any]] = field(default_factory=dict)  # the recovered talks


def recovered_talk(
    talk: Mapping[str, Any], member: Member, released_at: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of ``talk`` with its live claim closed into history, and the report's entry."""
    recovered = dict(talk)
    closed_claim = release_claim(
        member.claim, released_at=released_at, reason=RELEASE_REASON_RECOVERED
    )
    history = recovered.get("_queue_claim_history")
    recovered["_queue_claim_history"] = [
        *(history if isinstance(history, list) else []),
        closed_claim,
    ]
    del recovered["_queue_claim"]
    restored = member.claim.get("previous_status")
    recovered["status"] = restored
    entry = {"filename": member.filename, "restored_status": restored, "claim": closed_claim}
    return recovered, entry


class RecoverView:
    """The recovery decided on what each talk contributes, given talk by talk.

    :meth:`add` keeps the claims of ``(run_id, batch_id)`` in any state or
    location (``batch_already_closed`` names the first, as the epochs listed
    it) and whole only a talk whose current claim is a live member.
    """

    def __init__(self, run_id: str, batch_id: str) -> None:
        self.run_id = run_id
        self.batch_id = batch_id
        self.batch: list[Member] = []
        self.kept: dict[int, Any] = {}
        self.count = 0

    def add(self, position: int, talk: Any) -> None:
        """Talk ``position`` (every talk in order, from the first)."""
        self.count += 1
        members = talk_members(position, talk, self._of_batch, current_only=False)
        self.batch.extend(members)
        if any(self._is_live(m) for m in members):
            self.kept[position] = talk

    def _of_batch(self, claim: Mapping[str, Any]) -> bool:
        """The batch as the epochs group it (their key spells each field with ``str``)."""
        return str(claim.get("run_id")) == self.run_id and str(claim.get("batch_id")) == (
            self.batch_id
        )

    def _is_live(self, member: Member) -> bool:
        claim = member.claim
        return (
            member.location == "current"
            and claim.get("batch_id") == self.batch_id
            and claim.get("run_id") == self.run_id
            and claim.get("state") == STATE_CLAIMED
        )

    def _live(self) -> list[Member]:
        members = [m for m in self.batch if self._is_live(m)]
        if not members:
            if self.batch:
                raise Refusal(
                    "batch_already_closed",
                    f"batch ({self.run_id}, {self.batch_id}) has no live claim left to recover",
                    self.batch[0].path,
                )
            raise Refusal(
                "batch_not_found",
                f"no talk is claimed under ({self.run_id}, {self.batch_id})",
                jp("$", "talks"),
                hint="`rvault-db queue DB inspect` lists every live batch and epoch",
            )
        problems = mixed_batch_issues(members)
        if problems:
            raise Refusal(problems[0].code, problems[0].message, problems[0].path)
        return members

    def plan(self, released_at: str) -> RecoverOutcome:
        """Decide the recovery without touching the talks given."""
        members = self._live()
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
        released: list[dict[str, Any]] = []
        updated: dict[int, dict[str, Any]] = {}
        for member in members:
            updated[member.index], entry = recovered_talk(
                self.kept[member.index], member, released_at
            )
            released.append(entry)
        released.sort(key=lambda item: item["filename"])
        return RecoverOutcome(None, released, sorted(updated), updated)


def plan_recover(
    database: Mapping[str, Any], *, run_id: str, batch_id: str, released_at: str
) -> RecoverOutcome:
    """Decide the recovery on a decoded database without touching the input value."""
    talks = talks_of(database)
    view = RecoverView(run_id, batch_id)
    for position, talk in enumerate(talks):
        view.add(position, talk)
    outcome = view.plan(released_at)
    new_talks = list(talks)
    for position, talk in outcome.updated.items():
        new_talks[position] = talk
    outcome.database = {**database, "talks": new_talks}
    return outcome
