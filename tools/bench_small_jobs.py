"""The small jobs a speaker and an agent run most often, timed as they start.

Each job runs as the installed console script (start-up included), a fresh
process per run, byte-compiled as a wheel install leaves it (this checkout's
environment sets PYTHONDONTWRITEBYTECODE; the children run without it and a
warm-up run compiles). The figures are the median wall and the median CPU
(user + system) seconds of the process, with the load average, because on a
shared machine wall time mostly measures waiting for a core:

- ``rvault-transcript vtt-cleanup`` of a 10-minute (150 cues) and a 2-hour
  (1,800 cues) WebVTT file of varied English caption lines;
- validating one return: ``rvault-returns validate`` of one realistic return
  (60-slide ledger, 30 cited detections) against a 20-talk vault, built by
  ``packages/returns-persistence/benchmarks/run.py``;
- ``rvault-db status`` of a 20-talk vault (the testkit's realistic talks);
- and the floor under them: ``rvault-db --version`` and a bare interpreter.

``--peer DIR`` (a checkout of the public peer, jbaruch/speaker-toolkit) runs
the peer's scripts on the same inputs with the same interpreter, alternating
with ours run by run so both share the load, and prints the ratio (peer /
ours: above 1 means ours is faster). The peer's equivalents are
``skills/vault-ingress/scripts/vtt-cleanup.py IN OUT --force``,
``validate-returns.py BATCH`` and ``render-vault-status.py DB --generated-at
T`` (a dry run; it needs a ``rhetoric-style-summary.md`` beside the database,
which the benchmark writes). The peer's return format and catalog are
not ours (its validator reads its own return schema against its markdown
catalog), so it refuses our return at the first pattern id it does not know:
its row is only a lower bound of what a full validation costs it (``>=``).

Usage: ``.venv/bin/python tools/bench_small_jobs.py [--runs N] [--peer DIR] [--only SUBSTRING]``
(``--only vtt`` runs the two VTT jobs alone).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEECH = ROOT / "packages" / "transcript" / "benchmarks" / "speech_text.txt"
RETURNS_BENCH = ROOT / "packages" / "returns-persistence" / "benchmarks" / "run.py"
PEER_SCRIPTS = Path("skills") / "vault-ingress" / "scripts"
GENERATED_AT = "2026-12-05T00:00:00+00:00"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass(frozen=True)
class Job:
    label: str
    ours: list[str]
    peer: list[str] | None = None
    peer_may_refuse: bool = False
    """The peer cannot do the same work on this input: its figure is a lower bound."""


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float


def run_once(argv: list[str], may_fail: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ok = done.returncode == 0 or (may_fail and done.returncode in (1, 2))
    assert ok, (argv, done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def measured(job: Job, runs: int) -> tuple[Timing, Timing | None]:
    """Medians over ``runs`` for ours and (alternating run by run) the peer's script."""
    commands = [(job.ours, False)] + ([(job.peer, job.peer_may_refuse)] if job.peer else [])
    samples: list[list[tuple[float, float]]] = [[] for _ in commands]
    for argv, may_fail in commands:
        run_once(argv, may_fail)  # warm-up: byte-compile, page cache
    for _ in range(runs):
        for index, (argv, may_fail) in enumerate(commands):
            samples[index].append(run_once(argv, may_fail))
    timings = [
        Timing(statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
        for s in samples
    ]
    return timings[0], (timings[1] if job.peer else None)


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

    root.mkdir()
    database = root / "tracking-database.json"
    database.write_bytes(artifact_bytes(realistic_database(20)))
    # The peer renders its status block into this file (a dry run leaves it unchanged).
    (root / "rhetoric-style-summary.md").write_text("# Rhetoric style summary\n", "utf-8")
    return database


def returns_vault(root: Path) -> tuple[Path, Path]:
    """The returns-persistence benchmark's 20-talk vault with one member's return."""
    spec = importlib.util.spec_from_file_location("returns_bench", RETURNS_BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root.mkdir()
    database, batch = module.build(root, False, 20, 1)
    return database, batch


def vtt_jobs(root: Path, peer: Path | None, scripts: Path) -> list[Job]:
    jobs = []
    for label, cues in (("vtt-cleanup, 10-minute VTT", 150), ("vtt-cleanup, 2-hour VTT", 1800)):
        paths = {}
        for side in ("ours", "peer"):
            directory = root / side / str(cues)
            directory.mkdir(parents=True)
            vtt = directory / f"talk{cues}.en.vtt"
            vtt.write_text(caption_vtt(cues), encoding="utf-8")
            paths[side] = [str(vtt), str(directory / f"talk{cues}.txt"), "--force"]
        ours = [str(scripts / "rvault-transcript"), "vtt-cleanup", *paths["ours"]]
        theirs = None if peer is None else [sys.executable, str(peer / "vtt-cleanup.py")]
        jobs.append(Job(label, ours, theirs and [*theirs, *paths["peer"]]))
    return jobs


def all_jobs(root: Path, peer: Path | None, scripts: Path, only: str = "") -> list[Job]:
    """Every job whose label contains ``only``; inputs are built only for those."""
    jobs = [job for job in vtt_jobs(root, peer, scripts) if only in job.label]
    label = "validate one return, 20 talks"
    if only in label:
        database, batch = returns_vault(root / "returns")
        ours = [str(scripts / "rvault-returns"), "validate", str(batch), "--db", str(database)]
        theirs = None if peer is None else [sys.executable, str(peer / "validate-returns.py")]
        jobs.append(Job(label, ours, theirs and [*theirs, str(batch)], True))
    label = "rvault-db status, 20 talks"
    if only in label:
        database = status_vault(root / "status")
        ours = [str(scripts / "rvault-db"), "status", str(database), "--format", "json"]
        theirs = None
        if peer is not None:
            script = str(peer / "render-vault-status.py")
            theirs = [sys.executable, script, str(database), "--generated-at", GENERATED_AT]
        jobs.append(Job(label, ours, theirs))
    # The floor under every job: our start-up, and the interpreter both sides share.
    floor = [
        Job("start-up: rvault-db --version", [str(scripts / "rvault-db"), "--version"]),
        Job("start-up: python -c pass", [sys.executable, "-c", "pass"]),
    ]
    return jobs + [job for job in floor if only in job.label]


def report(rows: list[tuple[Job, Timing, Timing | None]], runs: int) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {runs}")
    peer = any(theirs is not None for _, _, theirs in rows)
    head = f"{'job':<32} {'wall s':>8} {'CPU s':>8}"
    if peer:
        head += f" {'peer wall':>10} {'peer CPU':>9} {'x wall':>7} {'x CPU':>7}"
    print(head)
    for job, ours, theirs in rows:
        line = f"{job.label:<32} {ours.wall:>8.3f} {ours.cpu:>8.3f}"
        if theirs is not None:
            bound = ">=" if job.peer_may_refuse else ""
            line += f" {theirs.wall:>10.3f} {theirs.cpu:>9.3f}"
            line += f" {bound + format(theirs.wall / ours.wall, '.2f'):>7}"
            line += f" {bound + format(theirs.cpu / max(ours.cpu, 1e-3), '.2f'):>7}"
        print(line)
    if peer:
        print("x = peer / ours (above 1: ours is faster); >= : the peer refused early")


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=7)
    options.add_argument("--peer", type=Path, help="a checkout of jbaruch/speaker-toolkit")
    options.add_argument(
        "--only", default="", metavar="SUBSTRING", help="run only the jobs whose label has it"
    )
    options.add_argument(
        "--bin",
        type=Path,
        default=Path(sys.executable).parent,
        help="where our console scripts are (default: this environment's, the editable dev "
        "install; a user's install, e.g. a venv with `pip install ./packages/...`, is what a "
        "user runs)",
    )
    args = options.parse_args(argv)
    peer = None if args.peer is None else args.peer.resolve() / PEER_SCRIPTS
    if peer is not None and not (peer / "vtt-cleanup.py").is_file():
        options.error(f"--peer: no {PEER_SCRIPTS}/vtt-cleanup.py under {args.peer}")
    with tempfile.TemporaryDirectory(prefix="rvault-small-jobs-") as tmp:
        jobs = all_jobs(Path(tmp), peer, args.bin, args.only)
        rows = [(job, *measured(job, args.runs)) for job in jobs]
    print(f"our console scripts: {args.bin}")
    report(rows, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
