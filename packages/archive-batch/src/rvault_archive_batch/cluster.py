"""Where the tasks run: an embedded ``LocalCluster`` of processes, or a running scheduler.

Imported only by ``run``: Dask and its scheduler are not needed to plan.

The embedded cluster is one single-threaded worker process per ``--workers``
(the owners' tools are CPU-bound child processes; one per worker keeps the
cores busy without oversubscribing them), each declaring the abstract
resource ``memory`` as its share of this machine's RAM, so a task annotated
with what it may hold at its peak is only placed where that fits. Against a
running scheduler the workers declare their own resources (``dask worker
--resources memory=8e9``); when any of them declares none, annotating would
leave tasks unschedulable there, so the batch runs without the annotation
and says so in its report.

Worker deaths are retried by the scheduler (``allowed-failures``); the
embedded scheduler is given the batch's retry cap, a remote one keeps its
own configuration.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dask
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.system import MEMORY_LIMIT
from rvault_contracts.cli import Refusal


@dataclass(frozen=True)
class Cluster:
    client: Client
    description: dict[str, Any]

    @property
    def memory_resource(self) -> bool:
        return bool(self.description["memory_resource"])


def _describe(client: Client, kind: str) -> dict[str, Any]:
    workers = client.scheduler_info(n_workers=-1)["workers"]
    memory = [w.get("resources", {}).get("memory") for w in workers.values()]
    return {
        "kind": kind,
        "scheduler": client.scheduler.address,
        "workers": len(workers),
        "threads": sum(w.get("nthreads", 0) for w in workers.values()),
        "memory_resource": bool(memory) and all(m is not None for m in memory),
        "dashboard": client.dashboard_link,
    }


class ShareCores(WorkerPlugin):
    """Pin each embedded worker (and so its owner processes) to its own share of the cores.

    The owners parallelise inside one run (video segments decode on one
    decoder per core in the affinity set, Whisper runs batched), which is
    what one worker on the whole machine should use; N workers would
    oversubscribe the same cores N times over. Worker ``i`` of ``n`` gets
    cores ``i, i+n, ...``; children inherit it. A restarted worker gets
    its share again (the plugin is set up on every new worker).
    """

    name = "rvault-batch-share-cores"

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def setup(self, worker: Any) -> None:
        cores = sorted(os.sched_getaffinity(0))
        if not isinstance(worker.name, int) or self.workers > len(cores):
            return
        os.sched_setaffinity(0, cores[worker.name % self.workers :: self.workers])


@contextmanager
def open_cluster(
    scheduler: str | None, workers: int, retries: int, connect_timeout: float = 10.0
) -> Iterator[Cluster]:
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=connect_timeout)
        except OSError as exc:
            raise Refusal(
                "scheduler_unreachable",
                f"cannot reach the Dask scheduler: {exc}",
                scheduler,
                hint="start it with `dask scheduler` (and workers with `dask worker ADDRESS`), "
                "or leave out --scheduler to run an embedded local cluster",
            ) from None
        with client:
            yield Cluster(client, _describe(client, "scheduler"))
        return
    with dask.config.set({"distributed.scheduler.allowed-failures": retries}):
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            resources={"memory": MEMORY_LIMIT // workers},
            dashboard_address=":0",  # a free port: batches side by side never collide
        )
    with cluster, Client(cluster) as client:
        if hasattr(os, "sched_setaffinity") and workers > 1:
            client.register_plugin(ShareCores(workers))
        yield Cluster(client, _describe(client, "local"))
