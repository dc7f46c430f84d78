"""What keeps ``make test``'s collection cheap (rvault_testkit.plugin), on a tiny suite.

Every xdist worker collects the whole suite before it runs a test, so a cost
there is paid twice. Two were found (issue 32): pytest rewrote every test
module's asserts on every run because PYTHONDONTWRITEBYTECODE=1 (our CI image,
this machine) stopped it from caching the result, and a parametrize of 3 MiB
byte strings spelled them into 18 MB test ids. One pytest run of a two-file
suite, with the variable set as CI sets it, shows both guards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLAIN = """
def test_plain():
    assert 1 + 1 == 2
"""

HUGE = """
import pytest


@pytest.mark.parametrize("value", [b"x" * 20_000])
def test_huge(value):
    assert value
"""


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    suite = tmp_path_factory.mktemp("suite")
    (suite / "test_plain.py").write_text(PLAIN, encoding="utf-8")
    (suite / "test_huge.py").write_text(HUGE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "--rootdir", str(suite), str(suite)],
        capture_output=True, text=True, check=False, timeout=120, cwd=suite,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    return suite, done


def test_rewritten_test_modules_are_cached_despite_pythondontwritebytecode(
    collected: tuple[Path, subprocess.CompletedProcess],
) -> None:
    suite, _ = collected
    cached = sorted(path.name for path in (suite / "__pycache__").glob("*-pytest-*.pyc"))
    assert [name.split(".")[0] for name in cached] == ["test_huge", "test_plain"], cached


def test_a_test_id_spelling_a_huge_parameter_is_refused(
    collected: tuple[Path, subprocess.CompletedProcess],
) -> None:
    _, done = collected
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "test ids are over 10000 characters" in done.stderr
    assert "test_huge.py::test_huge[" in done.stderr
