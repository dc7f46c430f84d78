"""Benchmark ``rvault-pptx extract --no-ocr`` end to end, worker isolation included.

Generates (untimed) the issue's 200-slide deck (text and notes on every
slide, a table every 10th, a group every 7th, a picture every 3rd, a timing
tree every 5th) and a 1-slide deck, then runs the installed console script
as a user would, several times each. Wall time is measured around the whole
process; memory is the peak of the sampled sum of RSS over the process tree
(supervisor + worker, sampled every ~2 ms with psutil) and, as a strict upper
bound, the sum of each process's own peak RSS (``ru_maxrss``) reported by
the command on stderr.

    .venv/bin/python packages/pptx-evidence/benchmarks/run.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil
from rvault_pptx_evidence import sample_decks
from rvault_testkit.plugin import console_script

TARGETS = {"200-slide": (1.2, 150.0), "1-slide": (0.35, 150.0)}
RSS_LINE = re.compile(r"worker peak_rss_kib=(\d+) supervisor peak_rss_kib=(\d+)")


def measure(deck: Path, workdir: Path) -> tuple[float, float, float, float, int]:
    """(wall s, tree CPU s, sampled tree peak MiB, per-process peak sum MiB, slide count)."""
    peak = 0
    done = threading.Event()
    out_path, err_path = workdir / "stdout.json", workdir / "stderr.txt"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            [console_script("rvault-pptx"), "extract", str(deck), "--no-ocr"],
            stdout=out,
            stderr=err,
        )

        def sample() -> None:
            nonlocal peak
            try:
                root = psutil.Process(process.pid)
            except psutil.NoSuchProcess:
                return
            while not done.is_set():
                total = 0
                try:
                    for proc in [root, *root.children(recursive=True)]:
                        total += proc.memory_info().rss
                except (psutil.NoSuchProcess, psutil.ZombieProcess):
                    pass
                peak = max(peak, total)
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # wait4's rusage covers the command and the worker it reaped.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    stdout, stderr = out_path.read_bytes(), err_path.read_bytes()
    if process.returncode != 0:
        raise SystemExit(
            f"extract failed ({process.returncode}): {stdout[:500]!r} {stderr[-500:]!r}"
        )
    match = RSS_LINE.search(stderr.decode())
    upper = (int(match.group(1)) + int(match.group(2))) / 1024 if match else float("nan")
    slides = int(re.search(rb'"slide_count": (\d+)', stdout).group(1))  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime, peak / (1024 * 1024), upper, slides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        decks = {"200-slide": workdir / "deck200.pptx", "1-slide": workdir / "deck1.pptx"}
        decks["200-slide"].write_bytes(sample_decks.benchmark_deck(200))
        decks["1-slide"].write_bytes(sample_decks.one_slide_deck())
        measure(decks["1-slide"], workdir)  # warm the page cache and .pyc files
        rows = []
        for name, deck in decks.items():
            runs = [measure(deck, workdir) for _ in range(args.runs)]
            walls = [r[0] for r in runs]
            median = statistics.median(walls)
            cpu = statistics.median(r[1] for r in runs)
            sampled = max(r[2] for r in runs)
            upper = max(r[3] for r in runs)
            slides = runs[0][4]
            wall_target, rss_target = TARGETS[name]
            verdict = "ok" if median <= wall_target and upper <= rss_target else "MISS"
            rows.append(
                (
                    name,
                    slides,
                    median,
                    min(walls),
                    cpu,
                    slides / median,
                    sampled,
                    upper,
                    wall_target,
                    verdict,
                )
            )
    header = (
        f"{'deck':<10} {'slides':>6} {'median s':>9} {'min s':>7} {'cpu s':>6} {'slides/s':>9} "
        f"{'tree MiB':>9} {'sum MiB':>8} {'target s':>9} {'':>5}"
    )
    load = os.getloadavg()[0]
    print(f"rvault-pptx extract --no-ocr, {args.runs} runs each, worker isolation included")
    print(f"host: {os.cpu_count()} CPUs, 1-min load average {load:.2f} at the end of the run")
    print(header)
    print("-" * len(header))
    for name, slides, median, low, cpu, rate, sampled, upper, target, verdict in rows:
        print(
            f"{name:<10} {slides:>6} {median:>9.3f} {low:>7.3f} {cpu:>6.3f} {rate:>9.1f} "
            f"{sampled:>9.1f} {upper:>8.1f} {target:>9.2f} {verdict:>5}"
        )
    print(
        "cpu s: median user+sys of the whole process tree (supervisor + worker); "
        "tree MiB: sampled peak of summed RSS; sum MiB: sum of per-process peaks (upper bound)"
    )
    return 0 if all(row[-1] == "ok" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
