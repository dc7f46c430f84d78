"""Running owner console scripts as a user does, and killing them at syscalls.

Not a test module. ``strace -e inject=SC:signal=SIG:when=N`` delivers SIG on
entry to the N-th call of syscall SC in the traced process (only the main
thread is traced, and every writer here does its I/O on the main thread).
SIGKILL stops the process before the syscall runs; SIGTERM lets it run and
then unwinds Python, which is exactly the "signal right after the rename"
case the writer protocol has to report honestly.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The nightly soak mode (exhaustive kill points, thousands of fuzz inputs); the
# module is named for this suite so no other package's conftest shadows it.
SOAK = os.environ.get("RVAULT_SOAK") == "1"
#: How deep a non-soak run goes. ``quick`` (``make test``): every install point of
#: each writer plus a seeded fill-up, each point under one signal (SIGKILL and
#: SIGTERM alternate along the run); ``sample`` (``make reliability``, CI's
#: reliability job): the seeded sample under both signals, as ``make test`` ran
#: it before. ``RVAULT_SOAK=1`` overrides both.
DEPTH = "soak" if SOAK else os.environ.get("RVAULT_RELIABILITY", "quick")
if DEPTH not in ("quick", "sample", "soak"):
    raise ValueError(f"RVAULT_RELIABILITY must be quick or sample, not {DEPTH!r}")

BIN = Path(sys.executable).parent
STRACE = shutil.which("strace")

#: The syscalls on a writer's path: data, durability and name operations.
WRITE_PATH = (
    "openat",
    "write",
    "pwrite64",
    "fsync",
    "fdatasync",
    "fchmod",
    "renameat",
    "renameat2",
    "rename",
    "linkat",
    "unlinkat",
    "mkdirat",
    "flock",
)
#: The install steps; every one of them is in the default sample.
INSTALL_OPS = ("renameat", "renameat2", "rename", "linkat")


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def document(self) -> Any:
        return json.loads(self.stdout)

    @property
    def signalled(self) -> int | None:
        return -self.returncode if self.returncode < 0 else None


def command(script: str, *args: str | os.PathLike[str]) -> list[str]:
    return [str(BIN / script), *map(str, args)]


def run(argv: list[str], *, cwd: Path | None = None, timeout: float = 300) -> Run:
    done = subprocess.run(argv, capture_output=True, cwd=cwd, timeout=timeout, check=False)
    return Run(done.returncode, done.stdout.decode(), done.stderr.decode(errors="replace"))


def trace_syscalls(
    argv: list[str], *, cwd: Path | None = None
) -> tuple[Run, list[tuple[str, int]]]:
    """Run once under strace; return the write-path calls in order as (syscall, occurrence)."""
    assert STRACE is not None, "strace is required (tools/bootstrap.sh installs it)"
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"rv-strace-{os.getpid()}-{random.random()}"
    try:
        done = run(
            [STRACE, "-qq", "-o", str(log), "-e", f"trace={','.join(WRITE_PATH)}", *argv], cwd=cwd
        )
        counts: Counter[str] = Counter()
        events = []
        for line in log.read_text(errors="replace").splitlines():
            match = re.match(r"([a-z0-9_]+)\(", line)
            if match:
                counts[match[1]] += 1
                events.append((match[1], counts[match[1]]))
        return done, events
    finally:
        log.unlink(missing_ok=True)


def call_number(argv: list[str], syscall: str, needle: str, *, cwd: Path | None = None) -> int:
    """The occurrence number of the first ``syscall`` whose traced arguments contain ``needle``.

    For a targeted kill point (e.g. the ``openat`` that creates the first
    staged file) instead of a sweep; the run happens once, for real.
    """
    assert STRACE is not None, "strace is required (tools/bootstrap.sh installs it)"
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"rv-strace-{os.getpid()}-{random.random()}"
    try:
        done = run([STRACE, "-qq", "-o", str(log), "-e", f"trace={syscall}", *argv], cwd=cwd)
        assert done.returncode == 0, (done.stdout, done.stderr[-2000:])
        calls = [line for line in log.read_text(errors="replace").splitlines()
                 if line.startswith(f"{syscall}(")]  # fmt: skip
        return next(n for n, line in enumerate(calls, 1) if needle in line)
    finally:
        log.unlink(missing_ok=True)


def killed_run(
    argv: list[str], syscall: str, when: int, sig: signal.Signals, *, cwd: Path | None = None
) -> Run:
    """Run ``argv`` with ``sig`` delivered on entry to the ``when``-th ``syscall``."""
    assert STRACE is not None
    name = sig.name.removeprefix("SIG")
    inject = f"inject={syscall}:signal={name}:when={when}"
    return run(
        [STRACE, "-qq", "-o", "/dev/null", "-e", f"trace={syscall}", "-e", inject, *argv],
        cwd=cwd,
    )


def kill_points(
    events: list[tuple[str, int]], *, budget: int | None, seed: int, locked_only: bool = False
) -> list[tuple[str, int]]:
    """Where to kill: a seeded sample of ``budget`` calls, or all of them (``budget=None``).

    Calls before the writer's first ``flock`` are interpreter start-up and
    argument checks; the sample never spends its budget there, and
    ``locked_only`` drops them from the exhaustive set too. The sample always
    holds every rename and link after the lock (the install steps a signal
    must not split), then fills up with random other calls, seeded so a
    failure reproduces.
    """
    locked = next((i for i, (sc, _) in enumerate(events) if sc == "flock"), 0)
    late = events[locked:]
    if budget is None:
        return late if locked_only else list(events)
    installs = [p for p in late if p[0] in INSTALL_OPS]
    rest = [p for p in late if p not in installs]
    rng = random.Random(seed)
    chosen = installs + rng.sample(rest, max(0, min(len(rest), budget - len(installs))))
    return sorted(chosen, key=late.index)


def hidden_leftovers(directory: Path) -> list[str]:
    """Crash remnants of the writer protocol below ``directory``."""
    found = []
    for path in directory.rglob(".*"):
        if re.search(r"\.(staged|rollback|recovery)$|\.bundle-journal$|\.frames-", path.name):
            found.append(str(path.relative_to(directory)))
    return sorted(found)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every regular file below ``root`` (hidden writer files and locks excluded)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or path.name.endswith(".lock"):
            continue
        if path.is_file() and not path.is_symlink():
            out[str(rel)] = path.read_bytes()
    return out
