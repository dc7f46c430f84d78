"""A worker process of a real LocalCluster killed mid-task (SIGKILL, as the OOM killer does).

``rvault-batch run`` runs as a console script; the test waits until one of
its worker processes is running Whisper (``rvault-transcript fetch`` is that
worker's child), checks the database is still the planned bytes, and kills
the worker. The owner process dies with it (``PR_SET_PDEATHSIG``), the
nanny restarts the worker, the scheduler hands the task to a live worker,
and the batch still registers everything in its one final transaction.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import time

import psutil
from rvault_testkit.archive_batch.archive import Archive
from rvault_testkit.plugin import console_script
from rvault_tracking_db.api import read_database, transcript_owner
from rvault_transcript.api import OwnerContext, read_evidence


def _owner_fetch(batch: psutil.Process, deadline: float) -> psutil.Process:
    """The first ``rvault-transcript fetch`` below the batch (its parent is a worker)."""
    while time.monotonic() < deadline:
        for child in batch.children(recursive=True):
            try:
                command = child.cmdline()
            except psutil.Error:
                continue
            if any(part.endswith("rvault-transcript") for part in command) and "fetch" in command:
                return child
        time.sleep(0.1)
    raise AssertionError("no rvault-transcript fetch started")


def test_killed_worker_is_retried_and_the_database_changes_once(
    archive: Archive, snapshot_file
) -> None:
    initial = archive.database.read_bytes()
    before = snapshot_file(archive.database)
    command = [console_script("rvault-batch"), "run", str(archive.vault), "--workers", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        fetch = _owner_fetch(psutil.Process(process.pid), time.monotonic() + 180)
        worker = fetch.parent()
        assert worker is not None and worker.pid != process.pid
        time.sleep(0.5)  # inside Whisper, not at its start
        assert snapshot_file(archive.database) == before  # nothing registered mid-batch
        worker.send_signal(signal.SIGKILL)
        fetch.wait(timeout=10)  # the owner process died with its worker
        stdout, stderr = process.communicate(timeout=420)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stdout.decode() + stderr.decode()
    report = json.loads(stdout)
    states = {o["key"]: o for o in report["done"] + report["failed"]}
    assert len(states) == 6
    # retried on a live worker (or, past the cap, reported failed with its code)
    killed = [o for o in report["failed"] if o["error"]["code"] == "worker_lost"]
    assert report["failed"] == killed
    registration = report["registration"]
    assert registration["input_sha256"] == hashlib.sha256(initial).hexdigest()
    assert (
        registration["output_sha256"] == hashlib.sha256(archive.database.read_bytes()).hexdigest()
    )
    # no torn artifact: every transcript on disk is whole and verifies from the record
    database = read_database(archive.database).database
    talks = {t["filename"]: t for t in database["talks"]}
    for talk in archive.talks:
        path = archive.vault / "transcripts" / f"{talk.video_id}.txt"
        key = f"transcript:{talk.filename}"
        if states[key]["state"] == "done":
            owner = OwnerContext(**transcript_owner(talks[talk.filename]).kwargs())
            assert read_evidence(path, owner=owner).timed_quote
        else:
            assert "transcript_path" not in talks[talk.filename]
    if all(states[f"transcript:{t.filename}"]["state"] == "done" for t in archive.talks):
        # the retried writer removed what the killed one had staged
        leftovers = [*archive.vault.rglob(".*.staged"), *archive.vault.rglob(".*.rollback")]
        assert leftovers == []
