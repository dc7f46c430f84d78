"""Read-modify-write of the database for the queue and scan commands.

Every write holds the persistent sibling lock across the owner read, the
computation and the hash-bound install, so the bytes a decision was made on
are exactly the bytes being replaced. The candidate is assessed by the owner
assessment before it is installed: a queue operation can never write a
database the owner read would refuse.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import WriteReport, WriterLock, install, writer_lock

from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.storage_path import database_parent
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


def encode(database: Mapping[str, Any]) -> bytes:
    return artifact_bytes(database)


def commit(result: ReadResult, database: Mapping[str, Any], lock: WriterLock) -> WriteReport:
    """Assess the candidate, then install it bound to the snapshot that was read."""
    candidate = dict(database)
    assessment = assess_database(candidate, database_parent=database_parent(result.database_path))
    if assessment.fatal:
        first = assessment.fatal[0]
        raise Refusal(
            "candidate_invalid",
            f"the computed database would fail the owner read: {first.code}: {first.message}",
            first.path,
        )
    return install(result.path, encode(candidate), expected=result.snapshot, lock=lock)


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
