"""The same batch through a running scheduler: ``dask scheduler`` and two ``dask worker``
processes on 127.0.0.1, started here as a deployment would start them.

The scheduler outlives each batch, so the resumed batch of a driver lost before its
registration runs here too: a second ``rvault-batch run`` against the same scheduler
(same planned database bytes, so the same task keys) must run its tasks again, not
reuse the first batch's results. A second local batch would cost a cluster start.
So does a batch with a refused task, which runs on the same deployment (its cluster is
not what it tests; the deployment is module-scoped, so its two tests share one xdist
worker and run one after the other).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rvault_testkit.archive_batch.archive import Archive
from rvault_tracking_db.api import read_database

DASK = str(Path(sys.executable).with_name("dask"))


def _address(scheduler_file: Path, process: subprocess.Popen, deadline: float) -> str:
    while time.monotonic() < deadline:
        assert process.poll() is None, "dask scheduler exited"
        if scheduler_file.exists():
            try:
                return json.loads(scheduler_file.read_text())["address"]
            except (ValueError, KeyError):
                pass
        time.sleep(0.2)
    raise AssertionError("dask scheduler did not start")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler on a free local port and two one-thread workers declaring memory.

    ``--no-nanny``: each worker is one process instead of a nanny and the worker it
    spawns (two imports of distributed less, about 1 CPU s); restarting a killed
    worker is the nanny's part and ``test_faults.py`` covers it on a LocalCluster.
    """
    scheduler_file = tmp_path_factory.mktemp("scheduler") / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [
        subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                          "--no-dashboard", "--scheduler-file", str(scheduler_file)], **quiet)
    ]  # fmt: skip
    try:
        address = _address(scheduler_file, processes[0], time.monotonic() + 60)
        for name in ("w1", "w2"):
            processes.append(
                subprocess.Popen([DASK, "worker", address, "--name", name, "--nthreads", "1",
                                  "--resources", "memory=4e9", "--no-dashboard",
                                  "--no-nanny"], **quiet)
            )  # fmt: skip
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        # The deployment's shutdown is not under test: SIGTERM made the workers try to
        # reconnect to a scheduler stopping beside them (8 s of teardown).
        for process in processes:
            process.kill()
        for process in processes:
            process.wait()


def test_batch_runs_through_a_scheduler_address_then_resumes_a_lost_registration(
    archive: Archive, scheduler: str, batch: Callable
) -> None:
    original = archive.database.read_bytes()
    result = batch("run", archive.vault, "--scheduler", scheduler)
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    cluster = report["cluster"]
    assert {k: cluster[k] for k in ("kind", "scheduler", "workers", "threads")} == {
        "kind": "scheduler", "scheduler": scheduler, "workers": 2, "threads": 2,
    }  # fmt: skip
    assert cluster["memory_resource"] is True  # both workers declare --resources memory
    assert report["failed"] == [] and report["totals"]["done"] == 6
    assert report["registration"]["applied"]
    database = read_database(archive.database).database
    assert all(t["transcript_source"] == "whisper" for t in database["talks"])
    assert len(database["pptx_catalog"]) == 2

    # a driver lost before its registration: the artifacts are there, the database is not
    # (the planned bytes): the next batch validates them instead of running Whisper again
    archive.database.write_bytes(original)
    resumed = batch("run", archive.vault, "--scheduler", scheduler).json
    assert resumed["failed"] == [] and resumed["registration"]["applied"]
    kinds = sorted(o["kind"] for o in resumed["done"])
    assert kinds == ["deck", "deck", "transcript", "transcript"]  # manifests still current
    assert {o["facts"]["method"] for o in resumed["done"] if o["kind"] == "transcript"} == {
        "existing"
    }
    talks = read_database(archive.database).database["talks"]
    assert all(t["local_media"] and t["transcript_path"] for t in talks)


def test_a_refused_task_is_reported_with_its_owner_code_and_the_rest_registers(
    archive: Archive, scheduler: str, batch: Callable
) -> None:
    first, second = archive.talks
    broken = archive.vault / "slides-rebuild" / second.video_id / f"{second.video_id}.mp4"
    broken.write_bytes(b"not a recording " * 64)
    result = batch("run", archive.vault, "--scheduler", scheduler, "--retries", "0")
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    failed = {o["key"]: o["error"] for o in report["failed"]}
    assert set(failed) == {f"transcript:{second.filename}", f"slides:{second.filename}"}
    for error in failed.values():
        assert error["code"] and error["message"] and error["command"].startswith("rvault-")
    assert failed[f"slides:{second.filename}"]["command"] == "rvault-video extract"
    assert {o["key"] for o in report["done"]} == {
        f"transcript:{first.filename}", f"deck:{first.filename}", f"slides:{first.filename}",
        f"deck:{second.filename}",
    }  # fmt: skip
    assert report["registration"]["applied"]
    talks = {t["filename"]: t for t in read_database(archive.database).database["talks"]}
    assert "transcript_path" in talks[first.filename]
    assert "transcript_path" not in talks[second.filename]
    # the next batch plans only what failed
    tasks = batch("plan", archive.vault).json["tasks"]
    assert sorted(t["key"] for t in tasks) == sorted(failed)
