"""``rvault-db scan-shownotes``: a database and an apply request in, report v3 out.

The scan is planned under the apply protocol's session (a dry run never
writes or locks); the add and update candidates are installed in one
transaction only with ``--apply``; review-required entries never mutate. A
disabled, remote or ``none`` source is a structured no-op that reads no
Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.writer import WriteReport

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.assessment.talks import CURRENT_TALK_VERSION
from rvault_tracking_db.queue import store
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.shownotes.scan import apply_plan, plan_scan
from rvault_tracking_db.shownotes.source import ShownotesSource, resolve_source

REPORT_VERSION = 3
DISPOSITIONS = ("add", "update", "unchanged", "review_required")


@dataclass
class _Scanned:
    """What one scan found and what it installed (nothing for a dry run or a no-op)."""

    source: ShownotesSource
    entries: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scanned: int = 0
    planned: bytes | None = None
    write: WriteReport | None = None


def _scan(current: Session, result: ReadResult) -> _Scanned:
    assert result.database is not None
    scanned = _Scanned(resolve_source(result.database.get("config")))
    if scanned.source.operation != "scan":
        return scanned
    assert scanned.source.talks_directory is not None
    plan = plan_scan(
        result.database, scanned.source.talks_directory, talk_schema_version=CURRENT_TALK_VERSION
    )
    scanned.entries, scanned.warnings = plan.entries, plan.warnings
    scanned.scanned = plan.scanned_file_count
    candidate = apply_plan(result.database, plan)
    if candidate is not None and store.root_version(result) == 1:
        # the dry run reports the digest apply would install, like mutate
        # (a legacy root has no installable candidate: apply refuses it)
        scanned.planned = store.candidate_bytes(result, candidate)
        scanned.write = current.install(scanned.planned)
    return scanned


def scan_shownotes(database: str | Path, apply: ApplyRequest) -> dict[str, Any]:
    """The ``db-scan-report`` v3 document of one scan (installed when ``apply`` says so)."""
    with session(database, apply) as current:
        result = current.result
        assert result.database is not None
        if current.request.apply:
            current.require_current_root("scan-shownotes --apply")
        scanned = _scan(current, result)
    counts = {name: 0 for name in DISPOSITIONS}
    for entry in scanned.entries:
        counts[entry["disposition"]] += 1
        if scanned.write is not None and entry["disposition"] in ("add", "update"):
            entry["applied"] = True
    outcome = current.outcome(scanned.planned, scanned.write, dry_run_state="dry_run")
    return {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "mode": outcome["mode"],
        "next_command": outcome["next_command"],
        "operation": scanned.source.operation,
        "apply_requested": outcome["apply_requested"],
        "database_written": outcome["database_written"],
        "input_sha256": result.sha256,
        "output_sha256": outcome["output_sha256"],
        "durability_state": outcome["durability_state"],
        "warnings": scanned.warnings + outcome["warnings"],
        "mutation_count": counts["add"] + counts["update"],
        "scanned_file_count": scanned.scanned,
        "existing_talk_count": len(result.database.get("talks") or []),
        "counts": counts,
        "shownotes": scanned.source.to_dict(),
        "entries": scanned.entries,
    }
