"""The owner preservation migration: root 0 -> 1, config v1 -> v2.

Its only semantic changes are: add root schema 1, add the validated
historical version 1 to an unversioned owner record, create absent owned
arrays as empty arrays, and upgrade config v1 to v2 (a missing exclusion list
gets the owner defaults, a present one is kept exactly). Every other value
and every missing-vs-present distinction is preserved. Active queue claims,
explicit version-0 sentinels, future versions and ambiguous records are
refused before any backup or write; the original bytes go to
``{vault_root}/.backups/`` through the writer protocol, and an already
current database is a byte-and-inode-preserving no-op.
"""

from __future__ import annotations

import os
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.config import (
    CURRENT_CONFIG_VERSION,
    DEFAULT_PPTX_DIRECTORY_EXCLUSIONS,
)
from rvault_tracking_db.assessment.model import child
from rvault_tracking_db.assessment.root import CURRENT_ROOT_VERSION, OWNED_ARRAYS
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.queue.batches import live_claim, talks_of
from rvault_tracking_db.reader import MAX_REPORTED_ISSUES

MIGRATION_REPORT_VERSION = 1
BACKUP_DIRECTORY = ".backups"
HISTORICAL_RECORD_VERSION = 1


def _stamp(record: Any, path: str, changes: list[dict[str, Any]]) -> Any:
    """A copy of ``record`` with the historical version, when it has none."""
    if isinstance(record, dict) and "schema_version" not in record:
        changes.append(
            {"action": "stamp_record_version", "path": path, "version": HISTORICAL_RECORD_VERSION}
        )
        return {**record, "schema_version": HISTORICAL_RECORD_VERSION}
    return record


def _stamp_talk(talk: Any, path: str, changes: list[dict[str, Any]]) -> Any:
    stamped = _stamp(talk, path, changes)
    if not isinstance(stamped, dict):
        return stamped
    rejections = stamped.get("source_rejections")
    if isinstance(rejections, list) and any(
        isinstance(r, dict) and "schema_version" not in r for r in rejections
    ):
        rpath = child(path, "source_rejections")
        new = [_stamp(r, child(rpath, i), changes) for i, r in enumerate(rejections)]
        stamped = {**stamped, "source_rejections": new}
    return stamped


def active_claims(database: dict[str, Any]) -> list[str]:
    return [
        f'$["talks"][{i}]["_queue_claim"]'
        for i, talk in enumerate(talks_of(database))
        if live_claim(talk) is not None
    ]


def migrate_value(database: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The migrated candidate and its change list (the input is not modified)."""
    changes: list[dict[str, Any]] = []
    candidate = dict(database)
    if "schema_version" not in candidate:
        candidate["schema_version"] = CURRENT_ROOT_VERSION
        changes.append(
            {
                "action": "stamp_root_version",
                "path": '$["schema_version"]',
                "version": CURRENT_ROOT_VERSION,
            }
        )
    config = candidate.get("config")
    if not isinstance(config, dict):
        raise Refusal(
            "ambiguous_record",
            "a database without a config object cannot be migrated without inventing one",
            '$["config"]',
        )
    version = config.get("schema_version", HISTORICAL_RECORD_VERSION)
    if version == HISTORICAL_RECORD_VERSION and type(version) is int:
        config = {**config, "schema_version": CURRENT_CONFIG_VERSION}
        changes.append(
            {"action": "upgrade_config", "path": '$["config"]', "version": CURRENT_CONFIG_VERSION}
        )
        if "pptx_directory_exclusions" not in config:
            config["pptx_directory_exclusions"] = list(DEFAULT_PPTX_DIRECTORY_EXCLUSIONS)
            changes.append(
                {
                    "action": "default_pptx_directory_exclusions",
                    "path": '$["config"]["pptx_directory_exclusions"]',
                    "version": CURRENT_CONFIG_VERSION,
                }
            )
        candidate["config"] = config
    for key in OWNED_ARRAYS:
        kpath = child("$", key)
        if key not in candidate:
            candidate[key] = []
            changes.append({"action": "create_array", "path": kpath, "version": None})
            continue
        records = candidate[key]
        if not isinstance(records, list):
            continue  # the candidate assessment refuses it
        stamp = _stamp_talk if key == "talks" else _stamp
        before = len(changes)
        new = [stamp(r, child(kpath, i), changes) for i, r in enumerate(records)]
        if len(changes) != before:
            candidate[key] = new
    return candidate, changes


def run_migration(
    database_path: str | os.PathLike[str], *, apply: bool, expected: str | None
) -> dict[str, Any]:
    """Dry-run or apply the migration under the one apply protocol."""
    with session(database_path, ApplyRequest(apply, expected)) as current:
        return _run(current)


def _run(current: Session) -> dict[str, Any]:
    result = current.result
    assert result.database is not None and result.assessment is not None
    claims = active_claims(result.database)
    if claims:
        raise Refusal(
            "active_queue_claim",
            f"{len(claims)} talk(s) are under an active queue claim; recover them first",
            claims[0],
            hint="close the batch with `rvault-db queue DB recover --run-id R --batch-id B`",
        )
    candidate, changes = migrate_value(result.database)
    verdict = assess_database(candidate, database_parent=database_parent(result.database_path))
    if verdict.fatal:
        first = verdict.fatal[0]
        raise Refusal(
            "ambiguous_record",
            f"the migrated database would not be valid ({first.code}): {first.message}",
            first.path,
            issues=[i.to_dict() for i in verdict.fatal[:MAX_REPORTED_ISSUES]],
        )
    original = result.snapshot.data
    assert original is not None
    new_bytes = original if not changes else artifact_bytes(candidate)
    backup_dir = None if not changes else current.vault_root / BACKUP_DIRECTORY
    write = current.install(new_bytes, backup_dir=backup_dir)
    outcome = current.outcome(new_bytes, write, dry_run_state=None)
    return {
        "backup_path": write.backup_path if write is not None else None,
        "changed": bool(changes),
        "changes": changes,
        "database_path": result.database_path,
        "database_written": outcome["database_written"],
        "durability_state": outcome["durability_state"] if write is not None else None,
        "from_root_schema_version": result.assessment.root_version,
        "input_sha256": result.sha256,
        "mode": current.request.mode,
        "next_command": outcome["next_command"],
        "ok": True,
        "output_sha256": outcome["output_sha256"],
        "schema_version": MIGRATION_REPORT_VERSION,
        "to_root_schema_version": CURRENT_ROOT_VERSION,
        "warnings": [issue.to_dict() for issue in verdict.warnings],
        "write": outcome["write"],
    }
