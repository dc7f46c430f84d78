"""SIGTERM at start-up and at shutdown: one JSON document and the documented exit code.

``rvault_contracts.cli.console_main`` installs its SIGTERM/SIGHUP handler
first, then imports the command modules and builds the parser outside
``run``'s own handler; a signal there used to end every tool with a
``KeyboardInterrupt`` traceback and an empty stdout. After the report is
printed, Python restores the default SIGTERM action while it shuts down, so
a late SIGTERM used to end a command whose write had landed as killed (exit
143). Now a signal before the report is ``interrupted`` (exit 130,
``EXIT_INTERRUPTED``; Ctrl-C's SIGINT too) and one after it changes nothing.

One command per tool, traced once; SIGTERM is then injected (``strace -e
inject``) at a handful of syscalls: just after the handler is installed,
inside each third-party C extension's initialisation (where a raised
interrupt once crashed orjson: SIGSEGV, no JSON; the handler now defers it
until the extension is whole), in the middle of and at the end of start-up
(the last file opened before the report) for *start-up*, and on the
report's own ``write(1, ...)`` and the syscalls after it for *shutdown*.
That bounded sample runs in ``make test``; the full sweep over every traced
syscall (marker ``sweep``, ``make test-full``) is the last test here.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import signal
from collections import Counter
from pathlib import Path

import pytest
from _harness import STRACE, command, killed_run, run

pytestmark = pytest.mark.skipif(STRACE is None, reason="strace is required")

TRACED = ("rt_sigaction", "openat", "newfstatat", "read", "write", "close", "munmap", "lseek")
EXIT_INTERRUPTED = 130


def _commands(root: Path) -> dict[str, list[str]]:
    """One command per tool: a database written (rvault-db) or a quick refusal/report."""
    return {
        "rvault-db": command("rvault-db", "init", root / "vault"),
        "rvault-pptx": command("rvault-pptx", "extract", root / "absent.pptx", "--out", root / "x"),
        "rvault-transcript": command(
            "rvault-transcript", "vtt-cleanup", root / "a.vtt", root / "a"
        ),
        "rvault-video": command("rvault-video", "validate", "--vault-root", root, root / "m.json"),
        "rvault-returns": command("rvault-returns", "catalog"),
        "rvault-analysis": command("rvault-analysis", "site", root / "site", "--db", root / "db"),
        "rvault-batch": command("rvault-batch", "plan", root / "vault-absent"),
    }


def _trace(argv: list[str], cwd: Path) -> tuple[int, str, list[str]]:
    log = cwd / f"strace-{random.random()}.log"
    done = run([STRACE, "-qq", "-o", str(log), "-e", f"trace={','.join(TRACED)}", *argv], cwd=cwd)
    lines = [line for line in log.read_text(errors="replace").splitlines() if "(" in line]
    log.unlink()
    return done.returncode, done.stdout, lines


def _points(lines: list[str]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(syscall, occurrence) kill points in start-up and in shutdown."""
    counts: Counter[str] = Counter()
    events = []
    for line in lines:
        name = line.split("(", 1)[0]
        counts[name] += 1
        events.append((name, counts[name], line))
    installed = next(
        i for i, e in enumerate(events) if re.match(r"rt_sigaction\(SIGTERM, \{sa_handler=0x", e[2])
    )
    report = next(i for i, e in enumerate(events) if e[2].startswith("write(1, "))
    opened = [i for i in range(installed + 1, report) if events[i][0] == "openat"]
    startup = sorted(
        {installed + 1, *_extension_inits(events, installed, report)}
        | ({opened[len(opened) // 2], opened[-1]} if opened else set())
    )
    shutdown = list(range(report, min(report + 4, len(events))))
    pick = lambda indexes: [events[i][:2] for i in indexes]  # noqa: E731
    return pick(startup), pick(shutdown)


def _extension_inits(events: list[tuple[str, int, str]], start: int, end: int) -> list[int]:
    """Inside each third-party C extension's initialisation: the first Python file it imports.

    Right after ``site-packages/...so`` is opened, the first ``.py`` looked up
    (before the next extension) is a module the extension's init imports from
    C, where a raised interrupt once crashed orjson (SIGSEGV, no JSON).
    """
    points = []
    for i in range(start, end):
        if events[i][0] == "openat" and "site-packages/" in events[i][2] and '.so"' in events[i][2]:
            for j in range(i + 1, end):
                if events[j][0] == "openat" and '.so"' in events[j][2]:
                    break
                if events[j][0] == "newfstatat" and '.py"' in events[j][2]:
                    points.append(j)
                    break
    return points


@pytest.mark.parametrize("tool", list(_commands(Path("/"))))
def test_sigterm_at_startup_and_shutdown(tool: str, tmp_path: Path) -> None:
    argv = _commands(tmp_path)[tool]
    (tmp_path / "vault").mkdir()
    baseline_code, baseline_out, lines = _trace(argv, tmp_path)
    baseline = json.loads(baseline_out)
    assert baseline_code in (0, 2), baseline_out
    startup, shutdown = _points(lines)
    for (syscall, when), sig in itertools.product(startup, (signal.SIGTERM, signal.SIGINT)):
        _reset(tmp_path)
        stopped = killed_run(argv, syscall, when, sig, cwd=tmp_path)
        where = f"{tool}: {sig.name} at start-up, {syscall} #{when}: {stopped.stderr[-600:]}"
        assert "Traceback" not in stopped.stderr, where
        document = json.loads(stopped.stdout)  # exactly one JSON document
        if stopped.returncode == EXIT_INTERRUPTED:
            assert document["error"]["code"] == "interrupted" and document["hint"], where
            assert not (tmp_path / "vault" / "tracking-database.json").exists(), where
        else:  # the signal came after the work was done (a landed write): the report stands
            assert (stopped.returncode, document) == (baseline_code, baseline), where
    for syscall, when in shutdown:
        _reset(tmp_path)
        stopped = killed_run(argv, syscall, when, signal.SIGTERM, cwd=tmp_path)
        where = f"{tool}: SIGTERM at shutdown, {syscall} #{when}: {stopped.stderr[-600:]}"
        assert stopped.returncode == baseline_code, where
        assert json.loads(stopped.stdout) == baseline, where
        assert "Traceback" not in stopped.stderr, where


def _reset(root: Path) -> None:
    """Back to the state the baseline ran in (rvault-db init creates the database)."""
    for path in (root / "vault").iterdir():
        if path.is_dir():
            for inner in path.iterdir():
                inner.unlink()
            path.rmdir()
        else:
            path.unlink()


def _every_point(lines: list[str]) -> list[tuple[str, int]]:
    """Every traced syscall from the handler's installation to the end: the full sweep."""
    counts: Counter[str] = Counter()
    events = []
    for line in lines:
        name = line.split("(", 1)[0]
        counts[name] += 1
        events.append((name, counts[name], line))
    installed = next(
        i for i, e in enumerate(events) if re.match(r"rt_sigaction\(SIGTERM, \{sa_handler=0x", e[2])
    )
    return [events[i][:2] for i in range(installed + 1, len(events))]


@pytest.mark.sweep
@pytest.mark.parametrize("tool", list(_commands(Path("/"))))
def test_sigterm_at_every_syscall_of_startup_and_shutdown(tool: str, tmp_path: Path) -> None:
    """The full sweep behind the sample above (make test-full): SIGTERM at every traced
    syscall after the handler is installed gives either the interrupted document (before
    the report, nothing written) or the unchanged report (after it), never a traceback, a
    crash or exit 143. About 13,000 runs, 29 min on two workers (docs/reliability.md)."""
    argv = _commands(tmp_path)[tool]
    (tmp_path / "vault").mkdir()
    baseline_code, baseline_out, lines = _trace(argv, tmp_path)
    baseline = json.loads(baseline_out)
    points = _every_point(lines)
    assert points
    for syscall, when in points:
        _reset(tmp_path)
        stopped = killed_run(argv, syscall, when, signal.SIGTERM, cwd=tmp_path)
        where = f"{tool}: SIGTERM at {syscall} #{when}: {stopped.stderr[-600:]}"
        assert "Traceback" not in stopped.stderr, where
        assert stopped.stdout.strip(), f"{where} (exit {stopped.returncode}, no JSON)"
        document = json.loads(stopped.stdout)
        if stopped.returncode == EXIT_INTERRUPTED:
            assert document["error"]["code"] == "interrupted" and document["hint"], where
            assert not (tmp_path / "vault" / "tracking-database.json").exists(), where
        else:
            assert (stopped.returncode, document) == (baseline_code, baseline), where
