"""The rules a batch obeys as a whole, beyond each of its returns.

Returns must cover exactly the live members of the claimed batch they
belong to, all of them one batch, and a claim v3-v5 batch must be one epoch
(one claimed_at, one baseline excluding exactly the batch). The queue owner
(tracking-db) decides membership and epochs; this module reports what it
finds as ``batch_*`` issues at ``$``.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import is_integer as is_int
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.database import Database, claim_registered, claim_schema_problems


def batch_issues(db: Database, filenames: list[str | None]) -> list[Issue]:
    """Returns must cover exactly the live members of every claimed batch they belong to."""
    issues: list[Issue] = []
    batches: dict[tuple[str, str], set[str]] = {}
    for filename in filenames:
        talk = db.talk(filename)
        claim = tracking.active_claim(talk) if talk is not None else None
        if claim is None:
            continue
        key = (str(claim.get("run_id")), str(claim.get("batch_id")))
        batches.setdefault(key, set()).add(filename or "")
    if len(batches) > 1:
        issues.append(
            Issue(
                "batch_mixed_identity",
                "$",
                f"the returns belong to {len(batches)} different batches",
            )
        )
    for (run_id, batch_id), names in sorted(batches.items()):
        members = set(tracking.batch_members(db.root, run_id, batch_id))
        if members != names:
            missing = sorted(members - names)
            issues.append(
                Issue(
                    "batch_membership_mismatch",
                    "$",
                    f"batch {run_id}/{batch_id} needs returns for "
                    f"exactly its live members; missing {missing}",
                )
            )
    if batches:
        issues.extend(_epoch_issues(db, set(batches)))
    return issues


def _claim_conforms(claim: Any) -> bool:
    """A stored claim that breaks its registered contract is reported on its return
    (``claim_invalid``); the epoch reader assumes well-formed claims, so it never sees one."""
    if not isinstance(claim, dict):
        return False
    version = claim.get("schema_version", 1)
    if not is_int(version) or not claim_registered(version):
        return False
    return not claim_schema_problems(claim, version)


def _epoch_issues(db: Database, batches: set[tuple[str, str]]) -> list[Issue]:
    """Claim v3-v5 batches share one claimed_at and one baseline excluding exactly the batch.

    The queue owner's reader decides (``rvault_tracking_db.api.epoch_issues``); a batch split
    over several claimed_at stamps is reported too, because it cannot be one epoch.
    """
    issues: list[Issue] = []
    grouped: dict[tuple[str, str], list[Any]] = {}
    for (run_id, batch_id, _stamp), members in tracking.epochs(db.root).items():
        if (run_id, batch_id) in batches:
            grouped.setdefault((run_id, batch_id), []).extend(
                m
                for m in members
                if m.location == "current"
                and m.claim.get("state") == "claimed"
                and _claim_conforms(m.claim)
            )
    for (run_id, batch_id), members in sorted(grouped.items()):
        for problem in tracking.epoch_issues(members):
            issues.append(
                Issue("batch_epoch_invalid", "$", f"batch {run_id}/{batch_id}: {problem.message}")
            )
    return issues
