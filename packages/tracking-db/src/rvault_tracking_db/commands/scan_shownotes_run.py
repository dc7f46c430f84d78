"""The shownotes scan behind ``rvault-db scan-shownotes`` (imported on use; see ``lazy``)."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import emit, finish
from rvault_contracts.writer import WriteReport

from rvault_tracking_db.assessment.talks import CURRENT_TALK_VERSION
from rvault_tracking_db.queue import store
from rvault_tracking_db.shownotes.scan import apply_plan, plan_scan
from rvault_tracking_db.shownotes.source import resolve_source

REPORT_VERSION = 3
DISPOSITIONS = ("add", "update", "unchanged", "review_required")


def run_scan(args: argparse.Namespace) -> int:
    with store.locked_read(args.database) as (result, lock):
        assert result.database is not None
        if args.apply:
            store.require_current_root(result, "scan-shownotes --apply")
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
            if candidate is not None and args.apply:
                write = store.commit(result, candidate, lock)
            elif candidate is not None and store.root_version(result) == 1:
                # the dry-run reports the digest apply would install, like mutate
                # (a legacy root has no installable candidate: apply refuses it)
                planned = store.candidate_bytes(result, candidate)
    counts = {name: 0 for name in DISPOSITIONS}
    for entry in entries:
        counts[entry["disposition"]] += 1
        if write is not None and entry["disposition"] in ("add", "update"):
            entry["applied"] = True
    written = store.write_fields(write, result)
    report = {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "mode": "apply" if args.apply else "dry-run",
        "operation": source.operation,
        "apply_requested": bool(args.apply),
        "database_written": written["database_written"],
        "input_sha256": result.sha256,
        "output_sha256": sha256_bytes(planned) if planned is not None else written["output_sha256"],
        "durability_state": written["durability_state"] if args.apply else "dry_run",
        "warnings": warnings + written["warnings"],
        "mutation_count": counts["add"] + counts["update"],
        "scanned_file_count": scanned,
        "existing_talk_count": len(result.database.get("talks") or []),
        "counts": counts,
        "shownotes": source.to_dict(),
        "entries": entries,
    }
    emit(report)
    return finish(0)
