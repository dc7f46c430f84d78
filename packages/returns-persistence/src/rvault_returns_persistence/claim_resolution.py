"""Tying one return to its version, its talk and the talk's active queue claim.

Validation checks a return's rules only once it is bound: a known return
version, exactly one talk of the database named by its filename (once per
batch), and that talk's active claim authorizing the version. Each step adds
its issue and yields None when the return cannot be bound, so the caller
checks it no further (the deeper findings would be noise). A claim that is no
longer live because this very batch was persisted is told apart
(``return_already_persisted``): that is a retry, not a claim to fix.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import Collector
from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import json_path as child
from rvault_contracts.suggest import did_you_mean
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.database import Database, claim_schema_problems
from rvault_returns_persistence.vocabulary import STATUSES

KNOWN_RETURN_VERSIONS = (1, 2, 3, 4, 5)
ALREADY_PERSISTED = "return_already_persisted"


def return_version(ret: dict[str, Any], issues: Collector, path: str) -> int | None:
    if "return_schema_version" not in ret:
        return 1  # historical returns without a version keep the legacy v1 contract
    value = ret["return_schema_version"]
    if not is_int(value) or value not in KNOWN_RETURN_VERSIONS:
        issues.add(
            "return_version_unknown",
            child(path, "return_schema_version"),
            f"return_schema_version {value!r} is not a known version (1-5)",
        )
        return None
    return value


def talk_of(
    path: str, ret: dict[str, Any], db: Database, seen: set[str], issues: Collector
) -> dict[str, Any] | None:
    """The one talk the return's filename names, once per batch (None: the issue is added)."""
    filename = ret.get("filename")
    if not isinstance(filename, str):
        issues.add(
            "missing_required_block", child(path, "filename"), "filename names the talk's .md file"
        )
        return None
    if filename in seen:
        issues.add(
            "duplicate_return",
            child(path, "filename"),
            f"{filename} appears more than once in the batch",
        )
    seen.add(filename)
    talk = db.talk(filename)
    if talk is None:
        issues.add(
            "talk_not_found",
            child(path, "filename"),
            f"{filename} is not exactly one talk of the database"
            + did_you_mean(filename, db.talks),
        )
        return None
    if ret.get("status") not in STATUSES:
        issues.add(
            "status_unknown", child(path, "status"), f"status must be one of {list(STATUSES)}"
        )
    return talk


def claim_of(
    path: str, ret: dict[str, Any], talk: dict[str, Any], version: int | None, issues: Collector
) -> dict[str, Any] | None:
    """The talk's active claim when it authorizes the return's version (None: the issue)."""
    claim = tracking.active_claim(talk)
    if claim is None:
        persisted = already_persisted(talk, ret)
        if persisted is not None:
            issues.add(ALREADY_PERSISTED, child(path, "queue_claim"), persisted)
        else:
            issues.add(
                "claim_not_active",
                child(path, "queue_claim"),
                "the talk has no active (claimed) queue claim",
            )
        return None
    if version is None or not _claim_compatible(
        issues, path, dict(claim), version, ret["filename"]
    ):
        return None
    return dict(claim)


def _claim_compatible(
    ctx_issues: Collector, path: str, claim: dict[str, Any], version: int, filename: str
) -> bool:
    problems = tracking.claim_issues(claim, path="$._queue_claim", filename=filename)
    for problem in problems:
        code = (
            "claim_version_unknown"
            if problem.code == "unsupported_claim_version"
            else "claim_invalid"
        )
        ctx_issues.add(
            code, child(path, "queue_claim"), f"active claim {problem.path}: {problem.message}"
        )
    if problems:
        return False
    version_of_claim = claim.get("schema_version", 1)
    for problem in claim_schema_problems(claim, version_of_claim):
        ctx_issues.add("claim_invalid", child(path, "queue_claim"), f"active claim {problem}")
        return False
    allowed = tracking.authorized_return_versions(claim)
    if version not in allowed:
        ctx_issues.add(
            "claim_return_incompatible",
            child(path, "return_schema_version"),
            f"the active claim (schema v{claim.get('schema_version')}) "
            f"authorizes only return versions {list(allowed)}",
        )
        return False
    return True


def already_persisted(talk: dict[str, Any], ret: Any) -> str | None:
    """Why a return whose claim is no longer live was already persisted, if it was.

    The talk's stored claim is the return's own batch (same run and batch)
    closed as ``completed``: persisting it again is not a claim to fix but
    nothing to do, and the person needs to find the receipt it left.
    """
    stored, supplied = (
        talk.get("_queue_claim"),
        ret.get("queue_claim") if isinstance(ret, dict) else None,
    )
    if not isinstance(stored, dict) or not isinstance(supplied, dict):
        return None
    same_batch = all(stored.get(k) == supplied.get(k) for k in ("run_id", "batch_id"))
    if stored.get("state") != "completed" or not same_batch:
        return None
    return (
        f"batch ({stored.get('run_id')}, {stored.get('batch_id')}) was already persisted at "
        f"{stored.get('released_at')}: {talk.get('filename')} was processed "
        f"{talk.get('processed_date')}, receipt result_payload_sha256 "
        f"{stored.get('result_payload_sha256')} (rvault-db read DB shows it)"
    )
