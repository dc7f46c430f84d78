"""Reading batches and retry epochs out of a decoded database.

A batch is every talk whose claim carries one ``(run_id, batch_id)``; an
*epoch* additionally fixes ``claimed_at``. Recovery can split one historical
epoch between ``_queue_claim`` and ``_queue_claim_history``, so epoch checks
look at both locations, while "live" means a current ``_queue_claim`` in state
``claimed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rvault_contracts.canonical import canonical_bytes
from rvault_contracts.issues import Issue

from rvault_tracking_db.queue.claims import STATE_CLAIMED, claim_version
from rvault_tracking_db.queue.claims import live_claim as live_claim  # re-exported
from rvault_tracking_db.queue.issues import jp


@dataclass(frozen=True)
class Member:
    index: int
    filename: str
    location: str  # "current" | "history"
    history_index: int | None
    claim: Mapping[str, Any]

    @property
    def path(self) -> str:
        base = jp("$", "talks", self.index)
        if self.location == "current":
            return jp(base, "_queue_claim")
        return jp(base, "_queue_claim_history", self.history_index or 0)


def talks_of(database: Mapping[str, Any]) -> list[Any]:
    talks = database.get("talks")
    return talks if isinstance(talks, list) else []


def _matching(database: Mapping[str, Any], wanted: Any, *, current_only: bool) -> list[Member]:
    """Claims satisfying ``wanted(claim)``; Member objects are built only for hits."""
    hits: list[Member] = []
    for index, talk in enumerate(talks_of(database)):
        hits.extend(talk_members(index, talk, wanted, current_only=current_only))
    return hits


def talk_members(index: int, talk: Any, wanted: Any, *, current_only: bool) -> list[Member]:
    """Talk ``index``'s claims satisfying ``wanted(claim)``, current first (one talk's part
    of :func:`_matching`, for a reader that streams the talks)."""
    hits: list[Member] = []
    if not isinstance(talk, dict):
        return hits
    current = talk.get("_queue_claim")
    if isinstance(current, dict) and wanted(current):
        hits.append(Member(index, str(talk.get("filename")), "current", None, current))
    if current_only:
        return hits
    history = talk.get("_queue_claim_history")
    if isinstance(history, list):
        for h_index, old in enumerate(history):
            if isinstance(old, dict) and wanted(old):
                hits.append(Member(index, str(talk.get("filename")), "history", h_index, old))
    return hits


def live_members(database: Mapping[str, Any], run_id: str, batch_id: str) -> list[Member]:
    return _matching(
        database,
        lambda c: (
            c.get("batch_id") == batch_id
            and c.get("run_id") == run_id
            and c.get("state") == STATE_CLAIMED
        ),
        current_only=True,
    )


def epoch_members(database: Mapping[str, Any], key: tuple[str, str, str]) -> list[Member]:
    """Members of one epoch only, in one pass without grouping the whole vault."""
    run_id, batch_id, claimed_at = key
    return _matching(
        database,
        lambda c: (
            c.get("claimed_at") == claimed_at
            and c.get("batch_id") == batch_id
            and c.get("run_id") == run_id
        ),
        current_only=False,
    )


def epoch_key(claim: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(claim.get("run_id")), str(claim.get("batch_id")), str(claim.get("claimed_at")))


def epochs(database: Mapping[str, Any]) -> dict[tuple[str, str, str], list[Member]]:
    grouped: dict[tuple[str, str, str], list[Member]] = {}
    for member in _matching(database, lambda _: True, current_only=False):
        grouped.setdefault(epoch_key(member.claim), []).append(member)
    return grouped


def mixed_batch_issues(members: list[Member]) -> list[Issue]:
    """Why a set of live members cannot be one batch (versions, stamps, baselines)."""
    issues: list[Issue] = []
    if not members:
        return issues
    first = members[0]
    versions = {claim_version(m.claim) for m in members}
    if len(versions) > 1:
        issues.append(
            Issue(
                "mixed_batch",
                first.path,
                f"batch mixes claim versions {sorted(map(str, versions))}",
            )
        )
    stamps = {m.claim.get("claimed_at") for m in members}
    if len(stamps) > 1:
        issues.append(
            Issue("mixed_batch", first.path, "batch members carry different claimed_at stamps")
        )
    baselines = {canonical_bytes(m.claim.get("adherence_baseline")) for m in members}
    if len(baselines) > 1:
        issues.append(
            Issue("mixed_batch", first.path, "batch members carry different adherence baselines")
        )
    return issues


def epoch_issues(members: list[Member]) -> list[Issue]:
    """v3-v5 epochs: one snapshot, and exact membership equal to excluded_filenames."""
    issues = mixed_batch_issues(members)
    with_baseline = [m for m in members if isinstance(m.claim.get("adherence_baseline"), Mapping)]
    if not with_baseline:
        return issues
    excluded = with_baseline[0].claim["adherence_baseline"].get("excluded_filenames")
    filenames = sorted(m.filename for m in members)
    if excluded != filenames:
        issues.append(
            Issue(
                "epoch_membership_mismatch",
                with_baseline[0].path,
                "epoch members do not equal the baseline's excluded_filenames",
            )
        )
    return issues
