"""Read-modify-write of the database for the queue and scan commands.

Every write holds the persistent sibling lock across the owner read, the
computation and the hash-bound install, so the bytes a decision was made on
are exactly the bytes being replaced. The candidate is assessed by the owner
assessment before it is installed: a queue operation can never write a
database the owner read would refuse.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import WriteReport, WriterLock, install, writer_lock

from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.model import Issues
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.assessment.talks import assess_talk
from rvault_tracking_db.queue.claims import claim_issues
from rvault_tracking_db.queue.splice import splice
from rvault_tracking_db.reader import ReadResult, read_database


def vault_root(result: ReadResult) -> Path:
    return Path(result.database_path).parent


def root_version(result: ReadResult) -> int | None:
    return result.assessment.root_version if result.assessment is not None else None


def require_current_root(result: ReadResult, command: str) -> None:
    if root_version(result) != 1:
        raise Refusal(
            "database_requires_migration",
            f"queue {command} needs database schema 1; run `rvault-db migrate` first",
            '$["schema_version"]',
        )


@contextmanager
def locked_read(path: str | os.PathLike[str]) -> Iterator[tuple[ReadResult, WriterLock]]:
    with writer_lock(path) as lock:
        yield read_database(path), lock


def _assess_changed(
    result: ReadResult, candidate: Mapping[str, Any], changed: Sequence[int]
) -> list[Any]:
    """Owner assessment of just the changed talks (filenames never change here)."""
    issues = Issues()
    missing = 1 if root_version(result) == 0 else None
    talks = candidate["talks"]
    for index in changed:
        assess_talk(
            talks[index],
            f'$["talks"][{index}]',
            issues,
            missing_version=missing,
            claim_checker=claim_issues,
        )
    return [issue for issue in issues.items if issue.severity == "fatal"]


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
        first = fatal[0]
        raise Refusal(
            "candidate_invalid",
            f"the computed database would fail the owner read: {first.code}: {first.message}",
            first.path,
        )
    if new_bytes is None:
        new_bytes = artifact_bytes(candidate)
    return new_bytes


def commit(
    result: ReadResult,
    database: Mapping[str, Any],
    lock: WriterLock,
    *,
    changed: Sequence[int] | None = None,
) -> WriteReport:
    """Assess the candidate, then install it bound to the snapshot that was read."""
    new_bytes = candidate_bytes(result, database, changed=changed)
    return install(result.path, new_bytes, expected=result.snapshot, lock=lock)


def write_fields(report: WriteReport | None, result: ReadResult) -> dict[str, Any]:
    """The report fields every writing queue command shares."""
    if report is None:
        return {
            "database_written": False,
            "durability_state": "unchanged",
            "input_sha256": result.sha256,
            "output_sha256": result.sha256,
            "warnings": [],
        }
    return {
        "database_written": report.database_written,
        "durability_state": report.durability_state,
        "input_sha256": report.input_sha256,
        "output_sha256": report.output_sha256,
        "warnings": list(report.warnings),
    }
