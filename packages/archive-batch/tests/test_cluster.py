"""The embedded cluster: one-thread workers, each pinned to its own share of the cores."""

from __future__ import annotations

import os

from rvault_archive_batch.cluster import open_cluster


def _cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def test_local_workers_split_the_cores_and_declare_memory() -> None:
    machine = _cores()
    with open_cluster(None, 2, retries=1) as cluster:
        shares = cluster.client.run(_cores)
        assert cluster.description["kind"] == "local"
        assert cluster.description["workers"] == 2 and cluster.description["threads"] == 2
        assert cluster.memory_resource
    first, second = shares.values()
    if len(machine) >= 2:
        assert not set(first) & set(second)
        assert sorted(first + second) == machine
    else:  # more workers than cores: nothing to split, both keep the machine
        assert first == second == machine
