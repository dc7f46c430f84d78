"""The candidate bytes of a queue, scan or source-lane write.

The candidate is assessed by the owner assessment before its bytes exist: a
queue operation can never write (or show as its dry-run output) a database
the owner read would refuse. Reading, locking and installing are the one
apply protocol's job (``rvault_tracking_db.apply_protocol``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector, Issue

from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.assessment.talks import assess_talk
from rvault_tracking_db.queue.claims import claim_issues
from rvault_tracking_db.queue.splice import splice
from rvault_tracking_db.reader import ReadResult


def root_version(result: ReadResult) -> int | None:
    return result.assessment.root_version if result.assessment is not None else None


def _assess_changed(
    result: ReadResult, candidate: Mapping[str, Any], changed: Sequence[int]
) -> list[Any]:
    """Owner assessment of just the changed talks (filenames never change here)."""
    issues = Collector()
    talks = candidate["talks"]
    for index in changed:
        assess_changed_talk(talks[index], index, issues, root_version(result))
    return list(issues.errors)


def assess_changed_talk(talk: Any, index: int, issues: Collector, version: int | None) -> None:
    """The owner's assessment of one changed talk at ``index`` (root schema ``version``)."""
    assess_talk(
        talk,
        f'$["talks"][{index}]',
        issues,
        missing_version=1 if version == 0 else None,
        claim_checker=claim_issues,
    )


def invalid_candidate(fatal: Sequence[Issue]) -> Refusal:
    """The refusal of a candidate the owner read would refuse (its first fatal issue)."""
    first = fatal[0]
    return Refusal(
        "candidate_invalid",
        f"the computed database would fail the owner read: {first.code}: {first.message}",
        first.path,
    )


def candidate_bytes(
    result: ReadResult,
    database: Mapping[str, Any],
    *,
    changed: Sequence[int] | None = None,
) -> bytes:
    """Assess the candidate and return the exact bytes an install would write.

    ``changed`` names the only talk indices the operation replaced (talk
    count, filenames and every other top-level value untouched); the owner
    assessment then runs on those talks and the encoding splices them into
    the input bytes. Without it the whole candidate is assessed and encoded.
    A dry-run uses this too, so its ``output_sha256`` is the digest apply
    would install (and it refuses what apply would refuse).
    """
    candidate = dict(database)
    new_bytes: bytes | None = None
    if changed is not None and result.database is not None:
        fatal = _assess_changed(result, candidate, changed)
        if not fatal and result.snapshot.data is not None:
            new_bytes = splice(result.snapshot.data, result.database, candidate, changed)
    else:
        assessment = assess_database(
            candidate, database_parent=database_parent(result.database_path)
        )
        fatal = list(assessment.fatal)
    if fatal:
        raise invalid_candidate(fatal)
    if new_bytes is None:
        new_bytes = artifact_bytes(candidate)
    return new_bytes
