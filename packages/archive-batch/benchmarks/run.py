"""Benchmark: a generated archive acquired by ``rvault-batch run`` on 1 and 2 local workers.

Prints a table: wall time per worker count and the scaling ratio, then per
task kind the median task wall time, the median CPU time of the owner
processes it ran, and their largest peak RSS. The per-task figures are what
the README's cost model for a large archive is written from; the machine's
load average is printed beside them because the wall times depend on it.

    .venv/bin/python packages/archive-batch/benchmarks/run.py [--talks 24] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rvault_testkit.archive_batch.archive import make_archive


def run_batch(vault: Path, workers: int) -> tuple[float, dict[str, Any]]:
    command = [str(Path(sys.executable).with_name("rvault-batch")), "run", str(vault),
               "--workers", str(workers)]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"rvault-batch exited {done.returncode}: {done.stdout[-2000:]!r}")
    return seconds, json.loads(done.stdout)


def per_kind(report: dict[str, Any]) -> dict[str, dict[str, float]]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for outcome in report["done"]:
        kinds.setdefault(outcome["kind"], []).append(outcome)
    return {
        kind: {
            "tasks": len(rows),
            "wall_s": statistics.median(r["seconds"] for r in rows),
            "cpu_s": statistics.median(r["owner_cpu_seconds"] for r in rows),
            "peak_mb": max(r["peak_rss_bytes"] for r in rows) / 2**20,
        }
        for kind, rows in sorted(kinds.items())
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--talks", type=int, default=24)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="rvault-batch-bench-"))
    try:
        started = time.perf_counter()
        archive = make_archive(home / "pristine", args.talks)
        print(f"generated {args.talks} talks in {time.perf_counter() - started:.1f} s "
              f"(recordings 5.1 s of speech and 2 slides, decks 2 text slides)")  # fmt: skip
        walls: dict[int, float] = {}
        reports: dict[int, dict[str, Any]] = {}
        for workers in args.workers:
            vault = home / f"w{workers}" / "vault"
            shutil.copytree(archive.vault, vault)
            load = os.getloadavg()
            walls[workers], reports[workers] = run_batch(vault, workers)
            totals = reports[workers]["totals"]
            cpu = sum(o["owner_cpu_seconds"] for o in reports[workers]["done"])
            busy = cpu / walls[workers]
            changes = reports[workers]["registration"]["mutations"]
            print(f"{workers} worker(s): {walls[workers]:7.1f} s wall, {totals['done']} done, "
                  f"{totals['failed']} failed, owner CPU {cpu:.1f} s ({busy:.2f} cores busy), "
                  f"one transaction ({changes} changes); load average "
                  f"{load[0]:.1f} before, {os.getloadavg()[0]:.1f} after")  # fmt: skip
        last = max(reports)
        vault = home / f"w{last}" / "vault"
        before = (vault / "tracking-database.json").read_bytes()
        seconds, rerun = run_batch(vault, last)
        unchanged = (vault / "tracking-database.json").read_bytes() == before
        print(f"rerun of the {last}-worker vault: {rerun['totals']['tasks']} tasks, "
              f"{seconds:.1f} s, database unchanged: {unchanged}")  # fmt: skip
        if 1 in walls and 2 in walls:
            print(f"scaling 1 -> 2 workers: {walls[1] / walls[2]:.2f}x")
        print(f"{os.cpu_count()} CPUs")
        print()
        print("| workers | kind | tasks | median task wall s | median owner CPU s | peak RSS MB |")
        print("| --- | --- | --- | --- | --- | --- |")
        for workers, report in reports.items():
            for kind, row in per_kind(report).items():
                print(f"| {workers} | {kind} | {row['tasks']} | {row['wall_s']:.2f} | "
                      f"{row['cpu_s']:.2f} | {row['peak_mb']:.0f} |")  # fmt: skip
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
