"""CPU seconds of ``rvault-db status`` on the 20-talk vault: this tree, an earlier one, the peer.

On a shared machine wall time mostly measures waiting for a core, and CPU
time drifts with the load, so the three are run alternately, run by run, in
one invocation, and compared by their medians: this checkout's status, the
same command with an earlier tree's code first on the path (``--before DIR``,
an export such as ``git archive COMMIT contracts packages | tar -x -C DIR``),
and the public peer's ``render-vault-status.py DB --generated-at T`` (``--peer
DIR``, a checkout of jbaruch/speaker-toolkit), plus a bare interpreter. The
vault is ``tools/bench_small_jobs.py``'s (testkit ``realistic_database(20)``
and the summary file the peer renders into). Each of ours runs the console
entry point (``sys.exit(main())``, as the installed script does) through
``python -c``, so both trees start the same way.

Usage: ``.venv/bin/python packages/tracking-db/benchmarks/status_cpu.py
[--runs N] [--before DIR] [--peer DIR]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.samples import realistic_database

ENTRY = "import sys; from rvault_tracking_db.cli import main; sys.exit(main())"
GENERATED_AT = "2026-12-05T00:00:00+00:00"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one fresh process running ``argv`` (it must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, (argv, done.stderr[-2000:])
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def commands(
    database: Path, before: Path | None, peer: Path | None
) -> dict[str, tuple[list[str], dict[str, str]]]:
    ours = [sys.executable, "-c", ENTRY, "status", str(database), "--format", "json"]
    found = {"ours": (ours, ENV)}
    if before is not None:
        paths = sorted(
            str(p) for pattern in ("contracts", "packages/*") for p in before.glob(pattern + "/src")
        )
        found["before"] = (ours, dict(ENV, PYTHONPATH=os.pathsep.join(paths)))
    if peer is not None:
        script = peer / "skills" / "vault-ingress" / "scripts" / "render-vault-status.py"
        found["peer"] = (
            [sys.executable, str(script), str(database), "--generated-at", GENERATED_AT],
            ENV,
        )
    found["python -c pass"] = ([sys.executable, "-c", "pass"], ENV)
    return found


def main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=15)
    options.add_argument("--before", type=Path, help="an export of an earlier tree")
    options.add_argument("--peer", type=Path, help="a checkout of jbaruch/speaker-toolkit")
    args = options.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rvault-status-cpu-") as tmp:
        database = Path(tmp) / "tracking-database.json"
        database.write_bytes(artifact_bytes(realistic_database(20)))
        (Path(tmp) / "rhetoric-style-summary.md").write_text("# Rhetoric style summary\n", "utf-8")
        runs = commands(database, args.before, args.peer)
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for command, env in runs.values():
            cpu_seconds(command, env)  # warm-up: byte-compile, page cache
        for _ in range(args.runs):
            for name, (command, env) in runs.items():
                samples[name].append(cpu_seconds(command, env))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.runs}")
    ours = statistics.median(samples["ours"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:16} CPU {median * 1000:7.1f} ms   x {median / ours:5.2f}")
    print("x = this row / ours (above 1: ours takes less CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
