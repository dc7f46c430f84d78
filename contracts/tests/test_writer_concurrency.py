"""Cooperating writers in separate processes serialize on the sibling lock."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.writer import (
    WriterError,
    install,
    lock_path_for,
    read_snapshot,
    writer_lock,
)

# fork keeps this working under --import-mode=importlib, where a spawned child
# could not re-import the test module by name.
CTX = multiprocessing.get_context("fork")
INCREMENTS = 20


def increment_many(target: str, worker: str, count: int, start: Any) -> None:
    """Read-modify-write a JSON counter ``count`` times under the writer lock."""
    start.wait()
    for _ in range(count):
        with writer_lock(target, timeout=60) as lock:
            snap = read_snapshot(target)
            doc = json.loads(snap.data) if snap.data is not None else {"n": 0, "log": []}
            doc["n"] += 1
            doc["log"].append(worker)
            install(target, json.dumps(doc).encode(), expected=snap, lock=lock)


def test_two_processes_read_modify_write_lose_no_update(tmp_path: Path) -> None:
    target = str(tmp_path / "counter.json")
    start = CTX.Event()
    workers = [
        CTX.Process(target=increment_many, args=(target, name, INCREMENTS, start))
        for name in ("a", "b")
    ]
    for process in workers:
        process.start()
    start.set()
    for process in workers:
        process.join(120)
    assert [p.exitcode for p in workers] == [0, 0]
    doc = json.loads(Path(target).read_bytes())
    assert doc["n"] == 2 * INCREMENTS
    assert sorted(doc["log"]) == ["a"] * INCREMENTS + ["b"] * INCREMENTS
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".staged")] == []


def install_from_shared_snapshot(
    target: str, payload: bytes, ready: Any, start: Any, out: Any
) -> None:
    """Install against a snapshot taken before the race starts."""
    snap = read_snapshot(target)
    ready.put(payload)
    start.wait()
    try:
        report = install(target, payload, expected=snap)
        out.put(("ok", report.durability_state, payload))
    except WriterError as exc:
        out.put(("refused", exc.code, payload))


def test_concurrent_installs_from_the_same_read_serialize(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"base")
    start = CTX.Event()
    ready, out = CTX.Queue(), CTX.Queue()
    payloads = [b"from-a", b"from-b"]
    workers = [
        CTX.Process(target=install_from_shared_snapshot, args=(str(target), p, ready, start, out))
        for p in payloads
    ]
    for process in workers:
        process.start()
    # both snapshots must be taken before either may install, however slowly
    # a loaded machine schedules the children
    assert sorted(ready.get(timeout=60) for _ in workers) == payloads
    start.set()
    results = [out.get(timeout=60) for _ in workers]
    for process in workers:
        process.join(60)
    assert [p.exitcode for p in workers] == [0, 0]
    winners = [r for r in results if r[0] == "ok"]
    losers = [r for r in results if r[0] == "refused"]
    assert len(winners) == 1 and len(losers) == 1, results
    assert winners[0][1] == "durable"
    assert losers[0][1] == "input_changed"
    assert target.read_bytes() == winners[0][2]


def hold_lock(target: str, held: Any, release: Any) -> None:
    with writer_lock(target):
        held.set()
        release.wait(60)


def test_lock_held_by_another_process_times_out(tmp_path: Path, snapshot_file) -> None:
    target = tmp_path / "db.json"
    target.write_bytes(b"v1")
    held, release = CTX.Event(), CTX.Event()
    holder = CTX.Process(target=hold_lock, args=(str(target), held, release))
    holder.start()
    try:
        assert held.wait(30)
        before = snapshot_file(target)
        with pytest.raises(WriterError) as info:
            install(target, b"v2", expected=read_snapshot(target), lock_timeout=0.2)
        assert info.value.code == "lock_unavailable"
        assert snapshot_file(target) == before
    finally:
        release.set()
        holder.join(30)
    assert holder.exitcode == 0
    report = install(target, b"v2", expected=read_snapshot(target), lock_timeout=5)
    assert report.durability_state == "durable"


def test_lock_file_is_persistent_and_reused(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    with writer_lock(target):
        pass
    inode = lock_path_for(target).stat().st_ino
    with writer_lock(target) as lock:
        assert lock.held
    assert not lock.held
    assert lock_path_for(target).stat().st_ino == inode


def test_same_thread_relock_fails_fast_instead_of_deadlocking(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    with writer_lock(target):
        with pytest.raises(WriterError) as info:
            install(target, b"x", expected=read_snapshot(target), lock_timeout=30)
    assert info.value.code == "lock_unavailable"
    assert "pass lock=" in info.value.message
    assert not target.exists()


def test_another_thread_waits_for_the_lock(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    outcome: list[str] = []

    def contender() -> None:
        try:
            with writer_lock(target, timeout=0.2):
                outcome.append("acquired")
        except WriterError as exc:
            outcome.append(exc.code)

    with writer_lock(target):
        thread = threading.Thread(target=contender)
        thread.start()
        thread.join(10)
    assert outcome == ["lock_unavailable"]


def test_lock_of_another_target_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    with writer_lock(tmp_path / "other.json") as lock:
        with pytest.raises(WriterError) as info:
            install(target, b"x", expected=read_snapshot(target), lock=lock)
    assert info.value.code == "lock_unavailable"
    assert not target.exists()


def test_released_lock_cannot_authorize_an_install(tmp_path: Path) -> None:
    target = tmp_path / "db.json"
    with writer_lock(target) as lock:
        pass
    with pytest.raises(WriterError) as info:
        install(target, b"x", expected=read_snapshot(target), lock=lock)
    assert info.value.code == "lock_unavailable"
    assert not target.exists()
