"""A read-only view of every talk's queue state, claims v1-v5 and epochs.

Inspection never mutates and never normalizes: a stored claim is shown
byte-for-byte as decoded, with its version and any deep-validation issues,
and every ``(run_id, batch_id, claimed_at)`` epoch is listed with its members
across current and history locations.

The view is made talk by talk (:class:`QueueView`), so ``rvault-db queue
inspect`` reads as the talks stream where the bytes are proven
(:class:`StreamedInspection`) and keeps no decoded tree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rvault_tracking_db.queue.batches import (
    Member,
    epoch_issues,
    epoch_key,
    talk_members,
    talks_of,
)
from rvault_tracking_db.queue.claims import claim_issues, claim_version
from rvault_tracking_db.streamed_read import Guard


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
    view = QueueView()
    for index, talk in enumerate(talks_of(database)):
        view.add(index, talk)
    return view.report()


class QueueView:
    """The inspection made talk by talk: each talk's row, and its claims for the epochs.

    A row holds the talk's claims and capability list, not the talk, so a
    reader that streams the talks (:mod:`.streamed_inspect`) drops each one
    after :meth:`add`.
    """

    def __init__(self) -> None:
        self._talks: list[dict[str, Any]] = []
        self._status_counts: dict[str, int] = {}
        self._epochs: dict[tuple[str, str, str], list[Member]] = {}

    def add(self, index: int, talk: Any) -> None:
        """Talk ``index`` (every talk in order, from the first)."""
        for member in talk_members(index, talk, _every, current_only=False):
            self._epochs.setdefault(epoch_key(member.claim), []).append(member)
        if not isinstance(talk, Mapping):
            return
        filename = str(talk.get("filename"))
        status = talk.get("status")
        self._status_counts[str(status)] = self._status_counts.get(str(status), 0) + 1
        current = talk.get("_queue_claim")
        history = talk.get("_queue_claim_history")
        self._talks.append(
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

    def report(self) -> dict[str, Any]:
        return {
            "talk_count": len(self._talks),
            "status_counts": dict(sorted(self._status_counts.items())),
            "talks": self._talks,
            "epochs": [_epoch_view(key, members) for key, members in sorted(self._epochs.items())],
        }


def _every(_: Any) -> bool:
    return True


def _epoch_view(key: tuple[str, str, str], members: list[Member]) -> dict[str, Any]:
    run_id, batch_id, claimed_at = key
    states: dict[str, int] = {}
    for member in members:
        state = str(member.claim.get("state"))
        states[state] = states.get(state, 0) + 1
    return {
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


class StreamedInspection:
    """:func:`~rvault_tracking_db.streamed_read.stream_or_read`'s planner for ``queue
    inspect``: the talks go to a :class:`QueueView` as they stream, and are dropped.

    A talk the view raised on hands the bytes to the whole read, which runs
    :func:`inspect_queue` again and raises there.
    """

    def __init__(self) -> None:
        self._view = QueueView()
        self._watched = False
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> Callable[[int, Any, Any], None]:
        self._watched = True
        return self._add

    def _add(self, index: int, talk: Any, found: Any) -> None:
        self._guard.run(self._view.add, index, talk)

    def finish(self, assessment: Any) -> QueueView | None:
        return self._view if self._watched and not self._guard.failed else None
