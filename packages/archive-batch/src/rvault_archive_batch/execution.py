"""Submitting the planned tasks, reporting progress, and collecting every outcome.

Each task is one Dask future with its annotations: ``retries`` (the cap on
transient failures, raised as :class:`~rvault_archive_batch.tasks.TransientTaskError`)
and, where the workers declare it, the ``memory`` resource the task may hold.
Progress goes to stderr one line per finished task (stdout is the report);
an error that survives the retries, or a worker lost more often than the
scheduler allows, becomes a failed outcome with a stable code, never an
exception out of the batch.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from distributed import as_completed
from distributed.client import FutureCancelledError
from distributed.scheduler import KilledWorker
from rvault_contracts.cli import progress

from rvault_archive_batch.cluster import Cluster
from rvault_archive_batch.planning import BatchPlan, Task
from rvault_archive_batch.tasks import TransientTaskError, run_task


def _failure(task: Task, error: BaseException) -> dict[str, Any]:
    if isinstance(error, KilledWorker):
        code = "worker_lost"
    elif isinstance(error, TransientTaskError):
        code = "task_retries_exhausted"
    elif isinstance(error, FutureCancelledError):
        code = "task_cancelled"
    else:
        code = "task_error"
    return {
        "key": task.key,
        "talk": task.talk,
        "kind": task.kind,
        "state": "failed",
        "error": {"code": code, "message": f"{type(error).__name__}: {error}"},
    }


def task_key(plan: BatchPlan, task: Task) -> str:
    """The task's scheduler key: one per task, vault, database file and its generation.

    A scheduler hands every future with one key the same result. Keying by the
    database's digest keeps a changed database from reusing an old result; the
    vault root and database path keep two vaults (or two copies of one) whose
    databases are byte-identical from sharing a scheduler's results.
    """
    where = hashlib.sha256(f"{plan.vault_root}\0{plan.database_path}".encode()).hexdigest()
    return f"rvault-batch-{task.key}-{plan.database_sha256[:12]}-{where[:12]}"


def execute(cluster: Cluster, plan: BatchPlan, retries: int) -> list[dict[str, Any]]:
    """Run every task of ``plan``; one outcome per task, in plan order."""
    client = cluster.client
    futures = {}
    for task in plan.tasks:
        resources = {"memory": task.memory_bytes} if cluster.memory_resource else None
        future = client.submit(
            run_task, task.to_dict(), plan.vault_root, plan.database_path,
            key=task_key(plan, task),
            retries=retries, resources=resources, pure=False,
        )  # fmt: skip
        futures[future] = task
    outcomes: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for count, future in enumerate(as_completed(futures), start=1):
        task = futures[future]
        error = future.exception()
        outcome = _failure(task, error) if error is not None else future.result()
        outcomes[task.key] = outcome
        _report(count, len(futures), outcome, time.perf_counter() - started)
    return [outcomes[task.key] for task in plan.tasks]


def _report(count: int, total: int, outcome: dict[str, Any], elapsed: float) -> None:
    detail = (
        outcome["error"]["code"]
        if outcome["state"] == "failed"
        else (f"{outcome['seconds']:.1f} s")
    )
    progress(
        f"rvault-batch: [{count}/{total}] {outcome['key']} {outcome['state']} ({detail}); "
        f"{elapsed:.0f} s elapsed"
    )


def failed(outcomes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in outcomes if o["state"] == "failed"]
