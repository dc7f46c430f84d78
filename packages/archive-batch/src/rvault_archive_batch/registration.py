"""The one database write of a batch: every task's changes in one source plan.

Workers asked tracking-db, each for its own artifact, which source-plan
changes would register it (a shortcut's dry run against the database the
batch was planned from). The driver joins them into one ``db-source-plan`` v1
and applies it through ``rvault-db sources --apply --expected-sha256`` bound
to the planned digest: one transaction, one writer, all or nothing. A
database that moved since the plan is refused by the owner, and nothing is
registered; the artifacts stay, and a rerun validates them instead of
redoing the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal

from rvault_archive_batch.owner_tools import run_tool
from rvault_archive_batch.planning import BatchPlan

PLAN_VERSION = 1


def joined_plan(plan: BatchPlan, outcomes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The batch's source plan; identical changes (a deck two talks share) once."""
    done = [o for o in outcomes if o["state"] == "done"]
    moved = sorted(o["key"] for o in done if o["read_sha256"] not in (None, plan.database_sha256))
    if moved:
        raise Refusal(
            "database_changed",
            "the tracking database changed while the batch ran; nothing was registered",
            plan.database_path,
            tasks=moved,
            hint="run rvault-batch run again: finished artifacts are validated, not redone",
        )
    mutations: list[dict[str, Any]] = []
    seen: set[bytes] = set()
    for outcome in done:
        for mutation in outcome["mutations"]:
            encoded = artifact_bytes(mutation)
            if encoded not in seen:
                seen.add(encoded)
                mutations.append(mutation)
    return {"schema_version": PLAN_VERSION, "mutations": mutations}


def register(plan: BatchPlan, outcomes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Apply the joined plan once; a summary of the owner's ``db-source-report``."""
    document = joined_plan(plan, outcomes)
    if not document["mutations"]:
        return {"applied": False, "mutations": 0, "output_sha256": plan.database_sha256}
    run = run_tool(
        "rvault-db", "sources", plan.database_path, "-",
        "--apply", "--expected-sha256", plan.database_sha256,
        stdin=artifact_bytes(document),
    )  # fmt: skip
    if run.returncode != 0 or run.document is None:
        error = run.error
        raise Refusal(
            error["code"],
            f"registering the batch was refused: {error.get('message')}",
            plan.database_path,
            hint=run.hint
            or "run rvault-batch run again: finished artifacts are validated, not redone",
        )
    report = run.document
    return {
        "applied": bool(report["database_written"]),
        "mutations": len(document["mutations"]),
        "changed": report["changed"],
        "input_sha256": report["input_sha256"],
        "output_sha256": report["output_sha256"],
        "durability_state": report["durability_state"],
        "warnings": report["warnings"],
    }
