"""Start-up of every console script: wall time and ``-X importtime`` figures.

Not a test (timings depend on the machine and its load, printed with the
figures); ``tools/tests/test_startup_imports.py`` guards *what* each path
imports. For each tool: the median wall and CPU time of ``SCRIPT --version`` and
``SCRIPT --help`` over N runs (a fresh interpreter each, as a user starts
it), the import time of its ``cli`` module as ``-X importtime`` reports it
(cumulative microseconds, the least of N runs) and the number of modules importing it loads, and
how much CPU ``--version`` costs beyond a bare interpreter (``python -c
pass``, the floor no console script can go under); then the same import
figures for each subcommand module a small job imports. ``make
bench-startup`` byte-compiles our sources first, as an install does.
Usage: ``.venv/bin/python tools/bench_startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOOLS = {
    "rvault-db": "rvault_tracking_db.cli",
    "rvault-transcript": "rvault_transcript.cli",
    "rvault-pptx": "rvault_pptx_evidence.cli",
    "rvault-video": "rvault_video_extraction.cli",
    "rvault-returns": "rvault_returns_persistence.cli",
    "rvault-analysis": "rvault_analysis_writer.cli",
    "rvault-batch": "rvault_archive_batch.cli",
}
# The modules a small job's command imports once it runs.
SMALL_JOB_MODULES = (
    "rvault_transcript.commands.vtt_cleanup",
    "rvault_returns_persistence.commands.validate",
    "rvault_tracking_db.commands.status",
)
BIN = Path(sys.executable).parent


def wall_ms(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall and median CPU (user + system) milliseconds of ``argv``.

    On a shared, loaded machine the wall time mostly measures waiting for a
    core; the CPU time is what the start-up itself costs.
    """
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def import_us(module: str, runs: int) -> tuple[int, int]:
    """``-X importtime`` cumulative microseconds of ``module`` (the least of ``runs``; the
    noise a loaded machine adds only lengthens it) and the number of modules it loads."""
    totals, count = [], 0
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"],
            capture_output=True,
            text=True,
            check=True,
        )
        lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
        totals.append(
            next(
                int(line.split("|")[1])
                for line in reversed(lines)
                if line.split("|")[2].strip() == module
            )
        )
        count = len(lines)
    return min(totals), count


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=7)
    runs = options.parse_args(argv).runs
    wall, cpu = wall_ms([sys.executable, "-c", "pass"], runs)
    print(f"load average {os.getloadavg()[0]:.1f}; runs {runs}; medians in ms (wall / CPU)")
    print(f"bare python: {wall:.0f} / {cpu:.0f}")
    header = ("script", "--version", "--help", "CPU over bare", "cli import", "modules")
    print(
        f"{header[0]:<18} {header[1]:>11} {header[2]:>11} {header[3]:>14} {header[4]:>11} "
        f"{header[5]:>8}"
    )
    for script, module in TOOLS.items():
        version = wall_ms([str(BIN / script), "--version"], runs)
        shown = wall_ms([str(BIN / script), "--help"], runs)
        total, count = import_us(module, runs)
        print(
            f"{script:<18} {'{:.0f} / {:.0f}'.format(*version):>11} "
            f"{'{:.0f} / {:.0f}'.format(*shown):>11} {version[1] - cpu:>14.0f} "
            f"{total / 1000:>11.1f} {count:>8}"
        )
    print(f"\n{'small job module':<46} {'import ms':>10} {'modules':>8}")
    for module in SMALL_JOB_MODULES:
        total, count = import_us(module, runs)
        print(f"{module:<46} {total / 1000:>10.1f} {count:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
