"""Every owner's console script keeps the one CLI shape, checked on the installed scripts.

The scripts are read from each package's ``[project.scripts]``, so a new owner
is covered the day it appears: ``--help`` and ``--version`` answer on stdout
with exit 0, ``python -m <module>`` is the same program, and a command line
that names no command or an unknown one is refused with exit 2 and exactly
one ``cli-failure`` document on stdout, usage going to stderr.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from rvault_contracts.schemas import schema_issues

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def console_scripts() -> list[tuple[str, str, str]]:
    """``(script, module, version)`` of every package, from its pyproject and __about__."""
    found = []
    for pyproject in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        for script, target in sorted(project.get("scripts", {}).items()):
            module = target.split(":")[0].removesuffix(".cli")
            about = pyproject.parent / "src" / module / "__about__.py"
            version = re.search(r'__version__ = "([^"]+)"', about.read_text(encoding="utf-8"))
            assert version is not None, about
            found.append((script, module, version.group(1)))
    return found


SCRIPTS = console_scripts()


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)


def test_every_owner_has_a_console_script() -> None:
    owners = {p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml")}
    assert len(SCRIPTS) == len(owners)


@pytest.mark.parametrize(("script", "module", "version"), SCRIPTS)
def test_version_and_help(script: str, module: str, version: str) -> None:
    shown = run(str(BIN / script), "--version")
    assert (shown.returncode, shown.stdout.strip(), shown.stderr) == (0, f"{script} {version}", "")
    helped = run(str(BIN / script), "--help")
    assert helped.returncode == 0
    assert helped.stdout.startswith(f"usage: {script} ")
    assert "Exit status: 0 success, 2 refused input" in helped.stdout


@pytest.mark.parametrize(("script", "module", "version"), SCRIPTS)
def test_module_entry_point_is_the_same_program(script: str, module: str, version: str) -> None:
    shown = run(sys.executable, "-m", module, "--version")
    assert shown.returncode == 0
    assert shown.stdout.strip() == f"{script} {version}"


@pytest.mark.parametrize("argv", [[], ["no-such-command"]], ids=["bare", "unknown"])
@pytest.mark.parametrize(("script", "module", "version"), SCRIPTS)
def test_a_bad_command_line_is_one_usage_error_document(
    script: str, module: str, version: str, argv: list[str]
) -> None:
    refused = run(str(BIN / script), *argv)
    assert refused.returncode == 2
    document = json.loads(refused.stdout)
    assert schema_issues("cli-failure", 1, document) == []
    assert document["ok"] is False
    assert document["error"]["code"] == "usage_error"
    assert f"usage: {script}" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("argv", [["--help"], ["no-such-command"]], ids=["help", "refusal"])
@pytest.mark.parametrize(("script", "module", "version"), SCRIPTS)
def test_a_closed_stdout_ends_quietly(
    script: str, module: str, version: str, argv: list[str]
) -> None:
    """``script ... | head`` closing the pipe early ends quietly, without a traceback."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stdout now fails with EPIPE
    try:
        done = subprocess.run(
            [str(BIN / script), *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    # Help text fits the stdout buffer and is lost at exit; a refusal's document is flushed
    # by emit, so its lost delivery is reported as an internal error.
    assert done.returncode == (0 if argv == ["--help"] else 1)
