"""The small jobs a speaker and an agent run most often, timed as they start.

Each job runs as the installed console script (start-up included), a fresh
process per run; the figures are the median wall and the median CPU (user +
system) seconds of the process, with the load average, because on a shared
machine wall time mostly measures waiting for a core:

- ``rvault-transcript vtt-cleanup`` of a 10-minute (150 cues) and a 2-hour
  (1,800 cues) WebVTT file of varied English caption lines;
- ``rvault-db status`` of a 20-talk vault (the testkit's realistic talks);
- validating one return: ``packages/returns-persistence/benchmarks/run.py
  --talks 20 --members 1`` (printed by that script; run it beside this one).

The public peer (jbaruch/speaker-toolkit) publishes no timings; its scripts
are public, so the side-by-side command is in the README ("Small jobs").
Usage: ``.venv/bin/python tools/bench_small_jobs.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SPEECH = ROOT / "packages" / "transcript" / "benchmarks" / "speech_text.txt"


def measured(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall and median CPU seconds of ``argv`` over ``runs`` fresh processes."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
    return statistics.median(walls), statistics.median(cpus)


def caption_vtt(cues: int) -> str:
    """``cues`` 4-second cues of English words from the speech text, each line distinct.

    Words are drawn (seeded) from the benchmark's speech text and every line
    ends in its own number, so the transcript passes the diversity and
    decoder-loop rules the way real captions do.
    """
    from rvault_testkit.transcript.languages import webvtt

    vocabulary = SPEECH.read_text(encoding="utf-8").split()
    rng = random.Random(cues)
    lines = []
    for index in range(cues):
        start = rng.randrange(len(vocabulary) - 10)
        lines.append(" ".join([*vocabulary[start : start + 9], str(index + 1)]))
    return webvtt(lines, header_language="en")


def status_vault(root: Path) -> Path:
    from rvault_contracts.canonical import artifact_bytes
    from rvault_testkit.tracking_db.samples import realistic_database

    database = root / "tracking-database.json"
    database.write_bytes(artifact_bytes(realistic_database(20)))
    return database


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=7)
    runs = options.parse_args(argv).runs
    rows = []
    with tempfile.TemporaryDirectory(prefix="rvault-small-jobs-") as tmp:
        root = Path(tmp)
        for label, cues in (("vtt-cleanup, 10-minute VTT", 150), ("vtt-cleanup, 2-hour VTT", 1800)):
            vtt = root / f"{cues}.vtt"
            vtt.write_text(caption_vtt(cues), encoding="utf-8")
            out = root / f"{cues}.txt"
            script = str(BIN / "rvault-transcript")
            rows.append(
                (label, *measured([script, "vtt-cleanup", str(vtt), str(out), "--force"], runs))
            )
        database = status_vault(root)
        argv_status = [str(BIN / "rvault-db"), "status", str(database), "--format", "json"]
        rows.append(("rvault-db status, 20 talks", *measured(argv_status, runs)))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {runs}")
    print(f"{'job':<30} {'wall s':>8} {'CPU s':>8}")
    for label, wall, cpu in rows:
        print(f"{label:<30} {wall:>8.3f} {cpu:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
