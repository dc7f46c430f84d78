"""Benchmark: ``rvault-analysis site`` for a 500-talk vault (target <= 10 s wall).

The vault comes from the tests' builder (``tests/site_vault.py``): 500 talks,
50 of them processed analyses with a real transcript bundle (text, timing
and quality receipts from ``rvault-transcript vtt-cleanup``) and a 20-page
promoted PDF each, so a cold run renders 1,000 slide thumbnails with PDFium,
50 talk pages, the overview and three leather SVG charts, then installs every
file in one transaction. The installed console script is timed (start-up
included), the way a speaker runs it:

* cold: into a new OUTDIR (every file written);
* warm: again into the same OUTDIR (every file rendered and compared,
  nothing rewritten);
* cold without search: ``--no-search`` into a new OUTDIR (no index built),
  so the difference to cold is what search indexing costs.

    .venv/bin/python packages/analysis-writer/benchmarks/site_run.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from site_vault import build_vault  # noqa: E402

TALKS = 500
PROCESSED = 50
PAGES = 20
TARGET_S = 10.0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(db: Path, outdir: Path, *extra: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its worker processes)."""
    script = Path(sys.executable).parent / "rvault-analysis"
    cpu = _cpu()
    started = time.perf_counter()
    result = subprocess.run(
        [str(script), "site", str(outdir), "--db", str(db), "--outside-vault", *extra],
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(result.stdout.decode() + result.stderr.decode())
    return elapsed, _cpu() - cpu


def _render_cpu(db: Path, search: bool) -> float:
    """CPU seconds (this process and its reaped pool workers) of one in-process render."""
    from rvault_analysis_writer.site.build import SiteRequest, render_site

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return own.ru_utime + own.ru_stime + _cpu()

    started = cpu()
    render_site(SiteRequest(outdir=db.parent / "unused", db=db, search=search))
    return cpu() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rvault-site-bench-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        vault = build_vault(root / "vault", talks=TALKS, processed=PROCESSED, pages=PAGES)
        setup = time.perf_counter() - started
        load = os.getloadavg()
        cold, warm, bare = [], [], []
        for run in range(args.runs):
            outdir = root / f"site-{run}"
            cold.append(_run(vault.db, outdir))
            warm.append(_run(vault.db, outdir))
            bare.append(_run(vault.db, root / f"bare-{run}", "--no-search"))
            shutil.rmtree(root / f"bare-{run}")
            if run:
                shutil.rmtree(outdir)
        index_kib = (root / "site-0" / "search-index.js").stat().st_size / 1024
        # interleaved A/B of the render alone (no install), CPU only: what indexing costs
        render = {True: [], False: []}
        for _ in range(args.runs):
            for search in (True, False):
                render[search].append(_render_cpu(vault.db, search))
        files = sum(1 for _ in (root / "site-0").iterdir())
        rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"vault: {TALKS} talks, {PROCESSED} processed, {PAGES}-page PDFs ({setup:.0f} s build)")
    print(f"site: {files} entries in OUTDIR ({PROCESSED * PAGES} thumbnails)")
    print(f"search-index.js: {index_kib:.0f} KiB")
    print()
    print("| run | median wall s | min wall s | max wall s | median CPU s | target wall s |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = (
        ("cold (new OUTDIR)", cold),
        ("warm (unchanged OUTDIR)", warm),
        ("cold, --no-search", bare),
    )
    for name, runs in rows:
        walls = [wall for wall, _ in runs]
        cpus = [cpu for _, cpu in runs]
        print(
            f"| {name} | {statistics.median(walls):.2f} | {min(walls):.2f} | {max(walls):.2f} "
            f"| {statistics.median(cpus):.2f} | {TARGET_S:.1f} |"
        )
    on, off = statistics.median(render[True]), statistics.median(render[False])
    print(
        f"\nin-process render CPU s, median of {args.runs} interleaved: with search {on:.2f}, "
        f"--no-search {off:.2f} (indexing {on - off:+.2f})"
    )
    print(f"\nload average before the runs: {load[0]:.1f} (on {os.cpu_count()} CPUs)")
    print(f"\npeak RSS of one run: {rss_mib:.0f} MiB")
    return 0 if statistics.median(wall for wall, _ in cold) <= TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
