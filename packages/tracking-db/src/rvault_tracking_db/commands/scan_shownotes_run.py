"""The shownotes scan behind ``rvault-db scan-shownotes`` (imported on use; see ``lazy``)."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.cli import emit, finish
from rvault_contracts.writer import WriteReport

from rvault_tracking_db.apply_protocol import ApplyRequest, session
from rvault_tracking_db.assessment.talks import CURRENT_TALK_VERSION
from rvault_tracking_db.queue import store
from rvault_tracking_db.shownotes.scan import apply_plan, plan_scan
from rvault_tracking_db.shownotes.source import resolve_source

REPORT_VERSION = 3
DISPOSITIONS = ("add", "update", "unchanged", "review_required")


def run_scan(args: argparse.Namespace) -> int:
    with session(args.database, ApplyRequest.from_args(args)) as current:
        result = current.result
        assert result.database is not None
        if current.request.apply:
            current.require_current_root("scan-shownotes --apply")
        source = resolve_source(result.database.get("config"))
        entries: list[dict[str, Any]] = []
        warnings: list[str] = []
        scanned = 0
        write: WriteReport | None = None
        planned: bytes | None = None
        if source.operation == "scan":
            assert source.talks_directory is not None
            plan = plan_scan(
                result.database, source.talks_directory, talk_schema_version=CURRENT_TALK_VERSION
            )
            entries, warnings, scanned = plan.entries, plan.warnings, plan.scanned_file_count
            candidate = apply_plan(result.database, plan)
            if candidate is not None and store.root_version(result) == 1:
                # the dry run reports the digest apply would install, like mutate
                # (a legacy root has no installable candidate: apply refuses it)
                planned = store.candidate_bytes(result, candidate)
                write = current.install(planned)
    counts = {name: 0 for name in DISPOSITIONS}
    for entry in entries:
        counts[entry["disposition"]] += 1
        if write is not None and entry["disposition"] in ("add", "update"):
            entry["applied"] = True
    outcome = current.outcome(planned, write, dry_run_state="dry_run")
    report = {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "mode": outcome["mode"],
        "next_command": outcome["next_command"],
        "operation": source.operation,
        "apply_requested": outcome["apply_requested"],
        "database_written": outcome["database_written"],
        "input_sha256": result.sha256,
        "output_sha256": outcome["output_sha256"],
        "durability_state": outcome["durability_state"],
        "warnings": warnings + outcome["warnings"],
        "mutation_count": counts["add"] + counts["update"],
        "scanned_file_count": scanned,
        "existing_talk_count": len(result.database.get("talks") or []),
        "counts": counts,
        "shownotes": source.to_dict(),
        "entries": entries,
    }
    emit(report)
    return finish(0)
