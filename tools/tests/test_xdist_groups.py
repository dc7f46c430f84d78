"""``make test`` relies on ``--dist loadgroup``: a module marked ``xdist_group``
(the demo, the speaker run) builds its costly module fixture once, on one
worker. If the pinned pytest and pytest-xdist stop agreeing on how a group
reaches the scheduler, the fixture silently runs once per worker and the
suite slows by its cost; this runs a tiny grouped suite on two workers and
asserts every grouped test ran on one. The testkit plugin groups a module
whose tests share a module-scoped fixture the same way, unmarked: its fixture
is built once, not once per worker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GROUPED = """
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("n", range(8))
def test_grouped(n):
    out = Path(os.environ["GROUP_OUT"]) / f"{n}.txt"
    out.write_text(os.environ["PYTEST_XDIST_WORKER"], encoding="utf-8")
"""

LOOSE = """
import time

import pytest


@pytest.mark.parametrize("n", range(8))
def test_loose(n):
    time.sleep(0.05)
"""

SHARED = """
import os
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def built():
    name = f"built-{os.environ['PYTEST_XDIST_WORKER']}-{time.time_ns()}"
    (Path(os.environ["SHARED_OUT"]) / name).write_text("", encoding="utf-8")


@pytest.mark.parametrize("n", range(8))
def test_shared(built, n):
    time.sleep(0.05)
"""


def test_a_marked_module_runs_on_one_worker(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_grouped.py").write_text(GROUPED, encoding="utf-8")
    (suite / "test_loose.py").write_text(LOOSE, encoding="utf-8")
    (suite / "test_shared.py").write_text(SHARED, encoding="utf-8")
    out, shared = tmp_path / "out", tmp_path / "shared"
    out.mkdir()
    shared.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
         "-p", "no:cacheprovider", "--rootdir", str(suite), str(suite)],
        capture_output=True, text=True, check=False, timeout=120, cwd=suite,
        env={**os.environ, "GROUP_OUT": str(out), "SHARED_OUT": str(shared)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {path.read_text(encoding="utf-8") for path in out.iterdir()}
    assert len(list(out.iterdir())) == 8
    assert len(workers) == 1, f"the grouped tests ran on {sorted(workers)}"
    builds = sorted(path.name for path in shared.iterdir())
    assert len(builds) == 1, f"the module fixture was built {builds}"
