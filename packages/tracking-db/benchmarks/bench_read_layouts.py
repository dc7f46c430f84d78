"""Benchmark: ``rvault-db read``'s peak RSS on one database in every layout a tool writes.

The read streams the talks when it can prove each one is its own encoding
in the file's layout (``decoding.stream_database``); this writes
``realistic_database(TALKS, outcomes=12)`` as the artifact encoding, the
public peer's ``json.dumps(indent=2, ensure_ascii=False)``, ``jq -c .``'s
line, ``json.dumps`` with default separators (ASCII-escaped and UTF-8) and
tight ASCII-escaped ``json.dumps``, then runs ``rvault-db read`` on each
under ``/usr/bin/time`` (its ``%M``, the peak RSS ``-v`` prints). With
``--before TREE`` every run of this tree is paired with one of TREE's
``packages/tracking-db/src`` (put first on ``PYTHONPATH``), interleaved, and
the two reports must be byte-identical. Issue 32: peak <= 3x the file.

Usage: ``.venv/bin/python packages/tracking-db/benchmarks/bench_read_layouts.py
[--talks 10000] [--repeat 3] [--before OLD_TREE] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rvault_testkit.tracking_db.layouts import LAYOUTS
from rvault_testkit.tracking_db.samples import realistic_database

RSS_FACTOR_TARGET = 3.0


def read_once(db: Path, out: Path, source: str | None) -> tuple[int, float]:
    """(peak RSS KiB, CPU s) of one ``rvault-db read`` (stdout to ``out``)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = source
    figures = out.with_suffix(".time")
    rvault_db = str(Path(sys.executable).parent / "rvault-db")
    argv = ["/usr/bin/time", "-o", str(figures), "-f", "%M %U %S", rvault_db, "read", str(db)]
    with out.open("wb") as stdout:
        subprocess.run(argv, stdout=stdout, env=env, check=True)
    kib, user, system = figures.read_text().split()[-3:]
    return int(kib), float(user) + float(system)


def measure(workdir: Path, talks: int, repeat: int, before: Path | None) -> None:
    database = realistic_database(talks, outcomes=12)
    old_source = str(before / "packages/tracking-db/src") if before else None
    print(f"rvault-db read, {talks} realistic talks: peak RSS MB (x the file), CPU s")
    print(f"{'layout':18} {'file MB':>8} {'before':>22} {'after':>22}")
    worst = 0.0
    for name, write in LAYOUTS.items():
        db = workdir / name.replace(" ", "_") / "tracking-database.json"
        db.parent.mkdir(parents=True, exist_ok=True)
        db.write_bytes(write(database))
        size = db.stat().st_size
        runs: dict[str, list[tuple[int, float]]] = {"before": [], "after": []}
        for _ in range(repeat):
            if old_source is not None:
                runs["before"].append(read_once(db, workdir / "before.json", old_source))
            runs["after"].append(read_once(db, workdir / "after.json", None))
            if old_source is not None:
                same = (workdir / "before.json").read_bytes() == (
                    workdir / "after.json"
                ).read_bytes()
                assert same, f"{name}: the reports differ"
        cells = [_cell(runs[key], size) for key in ("before", "after")]
        print(f"{name:18} {size / 1e6:8.1f} {cells[0]:>22} {cells[1]:>22}")
        worst = max(worst, max(kib for kib, _ in runs["after"]) * 1024 / size)
    verdict = "met" if worst <= RSS_FACTOR_TARGET else "NOT met"
    print(f"worst peak {worst:.2f}x the file: target <= {RSS_FACTOR_TARGET}x {verdict}")


def _cell(runs: list[tuple[int, float]], size: int) -> str:
    if not runs:
        return "-"
    peak = max(kib for kib, _ in runs) * 1024
    cpu = sorted(cpu for _, cpu in runs)[len(runs) // 2]
    return f"{peak / 1e6:.1f} ({peak / size:.2f}x) {cpu:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--talks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a tree to pair each run with (A/B)")
    parser.add_argument("--keep", type=Path, help="write the databases here and keep them")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        measure(args.keep, args.talks, args.repeat, args.before)
        return 0
    with tempfile.TemporaryDirectory() as workdir:
        measure(Path(workdir), args.talks, args.repeat, args.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
