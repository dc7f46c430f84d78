"""Concurrency: eight or more processes writing one database at once.

Mutators add distinct config keys, contenders race for the same keys,
claimers claim and recover their own talk, all through the hash-bound CLI
protocol with the documented retry contract (``retry_bound``), while the test
itself reads the database strictly the whole time. At the end every accepted
change is present (no lost update), every contested key landed exactly once
and the losers were refused with a stable code, every read was strictly
valid, and no mutator starved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import _vault
from _harness import SOAK, command
from rvault_contracts.strict_json import loads_strict
from rvault_tracking_db.api import read_database

WORKER = Path(__file__).with_name("_db_worker.py")
MUTATORS, CONTENDERS, CLAIMERS = (8, 4, 2) if SOAK else (4, 2, 2)
OPS = 20 if SOAK else 4
TALKS = ("2025-05-14-the-quiet-slide.md", "2024-10-02-arguments-that-land.md")


def test_concurrent_writers_lose_no_update(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    plan = tmp_path / "init.json"
    plan.write_text(json.dumps(_vault.init_plan(vault)))
    (vault / "shownotes").mkdir()
    shutil.copytree(_vault.SAMPLE / "shownotes", vault / "shownotes", dirs_exist_ok=True)
    db = vault / _vault.DB
    _vault.ok(command("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", "missing"))
    _vault.apply_db("scan-shownotes", db)
    fingerprint = _vault.ok(command("rvault-returns", "catalog"))["fingerprint"]

    jobs = []
    for i in range(MUTATORS):
        jobs.append({"role": "mutator", "id": f"m{i}", "ops": OPS})
    for i in range(CONTENDERS):
        jobs.append({"role": "contender", "id": f"c{i}", "ops": OPS})
    for i in range(CLAIMERS):
        jobs.append({"role": "claimer", "id": f"q{i}", "ops": OPS, "talk": TALKS[i % 2]})
    assert len(jobs) >= 8
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(WORKER.parent)}
    started = time.monotonic()
    children = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                json.dumps({**job, "db": str(db), "work": str(work), "fingerprint": fingerprint}),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for job in jobs
    ]
    reads = 0
    while any(child.poll() is None for child in children):
        result = read_database(db)  # the owner's strict read; raises on an invalid file
        assert result.database is not None
        loads_strict(db.read_bytes())
        reads += 1
        time.sleep(0.01)
    elapsed = time.monotonic() - started
    stats = []
    for child in children:
        out, err = child.communicate()
        assert child.returncode == 0, err.decode()[-3000:]
        stats.append(json.loads(out))

    final = read_database(db).database
    assert final is not None
    config = final["config"]
    landed = 0
    for worker in (s for s in stats if s["role"] == "mutator"):
        assert worker["landed"] == [f"probe_{worker['id']}_{n}" for n in range(OPS)], worker
        for n, key in enumerate(worker["landed"]):
            assert config[key] == [worker["id"], n], key  # no lost update
        landed += len(worker["landed"])
    contenders = [s for s in stats if s["role"] == "contender"]
    for n in range(OPS):
        key = f"contested_{n}"
        winners = [s["id"] for s in contenders if key in s["landed"]]
        assert len(winners) == 1, (key, winners)
        assert config[key] == winners[0]
        landed += 1
    losses = sum(sum(s["refused"].values()) for s in contenders)
    assert losses == OPS * (CONTENDERS - 1)
    loser_codes = {code for s in contenders for code in s["refused"]}
    assert loser_codes and "retries_exhausted" not in loser_codes, loser_codes
    claims = sum(len(s["landed"]) for s in stats if s["role"] == "claimer")
    assert claims == OPS * CLAIMERS, [s for s in stats if s["role"] == "claimer"]
    attempts = sum(s["attempts"] for s in stats)
    lost_races = sum(sum(s["refusals"].values()) for s in stats)
    writes = landed + 2 * claims
    figures = {
        "processes": len(jobs),
        "writes_landed": writes,
        "apply_attempts": attempts,
        "apply_refused_lost_race": lost_races,
        "contested_losers_refused": losses,
        "loser_codes": sorted(loser_codes),
        "strict_reads_during_run": reads,
        "seconds": round(elapsed, 2),
        "writes_per_second": round(writes / elapsed, 1),
    }
    report_dir = os.environ.get("RVAULT_RELIABILITY_REPORT")
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / "concurrency.json").write_text(json.dumps(figures, indent=2))
    print(figures)
