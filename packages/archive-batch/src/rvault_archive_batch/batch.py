"""``rvault-batch run``: plan, acquire on Dask, register once, report.

The order is the contract: nothing is written to the database until every
task has finished (done or failed), and then exactly once. A batch with
nothing to do starts no cluster and writes nothing, which is what a rerun of
a finished batch is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import progress

from rvault_archive_batch.planning import REPORT_VERSION, build_plan


@dataclass(frozen=True)
class RunRequest:
    vault: Path
    scheduler: str | None
    workers: int
    retries: int
    max_talks: int | None = None
    connect_timeout: float = 10.0
    """Seconds to try reaching ``scheduler`` before refusing ``scheduler_unreachable``."""


def run_batch(request: RunRequest) -> dict[str, Any]:
    started = time.perf_counter()
    plan = build_plan(request.vault, request.max_talks)
    progress(f"rvault-batch: {len(plan.tasks)} task(s), {len(plan.skipped)} talk(s) skipped")
    outcomes: list[dict[str, Any]] = []
    cluster: dict[str, Any] | None = None
    registration: dict[str, Any] = {
        "applied": False, "mutations": 0, "output_sha256": plan.database_sha256,
    }  # fmt: skip
    if plan.tasks:
        # Dask is imported only when there is work for it.
        from rvault_archive_batch.cluster import open_cluster
        from rvault_archive_batch.execution import execute
        from rvault_archive_batch.registration import register

        with open_cluster(
            request.scheduler, request.workers, request.retries, request.connect_timeout
        ) as opened:
            cluster = opened.description
            progress(f"rvault-batch: {cluster['workers']} worker(s) at {cluster['scheduler']}")
            outcomes = execute(opened, plan, request.retries)
        registration = register(plan, outcomes)
    done = [o for o in outcomes if o["state"] == "done"]
    failed = [o for o in outcomes if o["state"] == "failed"]
    return {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "command": "run",
        "database_path": plan.database_path,
        "input_sha256": plan.database_sha256,
        "output_sha256": registration["output_sha256"],
        "cluster": cluster,
        "retries": request.retries,
        "done": done,
        "failed": failed,
        "skipped": plan.skipped,
        "registration": registration,
        "totals": {
            "tasks": len(outcomes),
            "done": len(done),
            "failed": len(failed),
            "skipped_talks": len(plan.skipped),
            "seconds": round(time.perf_counter() - started, 3),
        },
    }
