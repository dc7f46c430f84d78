"""Benchmark: validate one return against a 20-talk vault, paired with an earlier tree.

The small job a worker runs before every hand-back (issue 32): one v5 return
(60-slide ledger, 30 cited detections; its talk has a 900-line transcript
and a 60-page authored slide PDF) against the 20-talk vault of
``run.py --talks 20 --members 1``, which ``tools/bench_small_jobs.py`` also
times. Each variant runs as a fresh process, alternating run by run so all
share the load, and the median wall and CPU (user + system) seconds are
printed with the ratio to the peer's (``peer / ours``):

- ``this tree``: the installed ``rvault-returns validate``;
- ``--before DIR``: the same command from an earlier tree exported with
  ``git archive COMMIT | tar -x -C DIR`` (its ``src`` directories first on
  ``PYTHONPATH``); its stdout must be byte-identical to this tree's;
- ``--peer DIR``: the peer's ``validate-returns.py BATCH`` (a checkout of
  jbaruch/speaker-toolkit; it refuses our return at its first pattern id, so
  its figure is a lower bound);
- ``--without-probe``: what-if only: this tree with the slide PDF's page
  count given instead of probed (what a page count recorded against the
  PDF's SHA-256 would save; no such record exists for an authored PDF).

``--split`` prints where one fresh process spends its CPU (``process_time``,
minimum over the runs; with ``--before``, the earlier tree's beside it):
interpreter start, ``rvault_contracts.cli``, the validate command's imports,
pypdf's import, the database read, the catalog, the checks (the PDF parse
included) and the report.

    .venv/bin/python packages/returns-persistence/benchmarks/validate_one.py \\
        [--runs N] [--before DIR] [--peer DIR] [--without-probe] [--split]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from _measure import timed  # noqa: E402
from run import build  # noqa: E402

PEER_SCRIPT = Path("skills") / "vault-ingress" / "scripts" / "validate-returns.py"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
WITHOUT_PROBE = (
    "import sys; import rvault_returns_persistence.artifacts as a; "
    "a.pdf_page_count = lambda path: 60; "
    "from rvault_returns_persistence.cli import main; sys.exit(main(sys.argv[1:]))"
)
SPLIT = """
import time
marks = [time.process_time()]
import argparse, contextlib, io
from pathlib import Path
from rvault_contracts.cli import emit
marks.append(time.process_time())
from rvault_returns_persistence import validator
from rvault_returns_persistence.commands import common, validate
marks.append(time.process_time())
import pypdf
marks.append(time.process_time())
args = argparse.Namespace(returns=Path(BATCH), db=Path(DB), vault_root=None, catalog=None,
                          member=None)
document = validate.read_returns(args.returns)
db, root = common.open_database(args)
marks.append(time.process_time())
catalog, label = common.open_catalog(args)
marks.append(time.process_time())
report = validator.validate_batch(document, db=db, catalog=catalog, vault_root=root,
                                  catalog_label=label)
marks.append(time.process_time())
with contextlib.redirect_stdout(io.StringIO()):
    emit(report)
marks.append(time.process_time())
print(" ".join(str(b - a) for a, b in zip([0.0, *marks], marks)))
"""
PHASES = (
    "interpreter start",
    "rvault_contracts.cli import",
    "validate command imports",
    "pypdf import",
    "returns + database read",
    "catalog load and check",
    "checks (PDF parse included)",
    "report",
)


def _before_env(tree: Path) -> dict[str, str]:
    sources = [tree / "contracts" / "src", *sorted((tree / "packages").glob("*/src"))]
    return {**ENV, "PYTHONPATH": os.pathsep.join(str(s) for s in sources)}


def _variants(
    args: argparse.Namespace, db: Path, batch: Path
) -> list[tuple[str, list[str], dict[str, str]]]:
    validate_args = ["validate", str(batch), "--db", str(db)]
    script = Path(sys.executable).parent / "rvault-returns"
    variants = [("this tree", [str(script), *validate_args], ENV)]
    if args.before is not None:
        argv = [sys.executable, "-m", "rvault_returns_persistence", *validate_args]
        variants.append((f"before ({args.before.name})", argv, _before_env(args.before)))
    if args.without_probe:
        argv = [sys.executable, "-c", WITHOUT_PROBE, *validate_args]
        variants.append(("what-if: no PDF probe", argv, ENV))
    if args.peer is not None:
        argv = [sys.executable, str(args.peer / PEER_SCRIPT), str(batch)]
        variants.append(("peer validate-returns.py", argv, ENV))
    return variants


def paired(args: argparse.Namespace, db: Path, batch: Path) -> None:
    """Median wall/CPU of every variant, alternating run by run; outputs compared."""
    variants = _variants(args, db, batch)
    outputs = {}
    for label, argv, env in variants:  # warm-up: byte-compile, page cache
        outputs[label] = timed(argv, env)[2]
    ours = outputs["this tree"]
    assert ours.returncode == 0, ours.stdout[-2000:]
    for label, done in outputs.items():
        if not label.startswith("peer"):
            assert done.stdout == ours.stdout and done.returncode == 0, (label, done.stderr)
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in variants}
    for _ in range(args.runs):
        for label, argv, env in variants:
            wall, cpu, _ = timed(argv, env)
            samples[label].append((wall, cpu))
    medians = {
        label: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
        for label, s in samples.items()
    }
    peer = next((m for label, m in medians.items() if label.startswith("peer")), None)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.runs}")
    print(f"{'variant':<28} {'wall s':>7} {'CPU s':>7}" + ("  x wall  x CPU" if peer else ""))
    for label, (wall, cpu) in medians.items():
        line = f"{label:<28} {wall:>7.3f} {cpu:>7.3f}"
        if peer is not None and not label.startswith("peer"):
            line += f"  {peer[0] / wall:>6.2f} {peer[1] / cpu:>6.2f}"
        print(line)
    print("outputs: every variant's stdout is byte-identical to this tree's")


def split(runs: int, db: Path, batch: Path, before: Path | None) -> None:
    """Minimum CPU milliseconds per phase of one fresh process (see :data:`PHASES`),
    this tree's and, alternating with it, the earlier tree's."""
    import subprocess

    code = SPLIT.replace("BATCH", repr(str(batch))).replace("DB", repr(str(db)))
    trees = {"this tree": ENV, **({"before": _before_env(before)} if before is not None else {})}
    rows: dict[str, list[list[float]]] = {label: [] for label in trees}
    for _ in range(runs):
        for label, env in trees.items():
            argv = [sys.executable, "-c", code]
            done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
            rows[label].append([float(x) for x in done.stdout.split()])
    print(f"CPU ms per phase, minimum of {runs} fresh processes (load {os.getloadavg()[0]:.1f})")
    print(f"  {'phase':<30}" + "".join(f"{label:>11}" for label in trees))
    for index, phase in enumerate(PHASES):
        cells = (1000 * min(r[index] for r in rows[label]) for label in trees)
        print(f"  {phase:<30}" + "".join(f"{cell:>11.1f}" for cell in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, help="an earlier tree (git archive COMMIT)")
    parser.add_argument("--peer", type=Path, help="a checkout of jbaruch/speaker-toolkit")
    parser.add_argument("--without-probe", action="store_true", help="add the what-if variant")
    parser.add_argument("--split", action="store_true", help="print the CPU split per phase")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rvault-validate-one-") as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        db, batch = build(root, False, 20, 1)
        paired(args, db, batch)
        if args.split:
            split(args.runs, db, batch, args.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
