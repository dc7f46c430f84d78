"""The console script answers --help and --version, and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_returns_persistence import __version__
from rvault_returns_persistence.cli import main


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rvault-returns {__version__}"


def test_help_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "usage: rvault-returns" in capsys.readouterr().out


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rvault_returns_persistence", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip().endswith(__version__)


def test_no_command_is_a_usage_error_with_one_json_document(
    cli: Callable[..., Any],
) -> None:
    result = cli("rvault-returns")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "usage_error"


def test_non_utf8_argument_is_refused_with_one_json_document(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    db = tmp_path / "tracking-database.json"
    db.write_text('{"schema_version": 1, "talks": []}', encoding="utf-8")
    talk = cli("rvault-returns", "scaffold", "--db", db, "--talk", os.fsdecode(b"\xff.md"))
    assert talk.returncode == 2, talk.stderr
    assert talk.json["error"]["code"] == "argument_not_utf8"
    assert talk.json["error"]["path"] == "\\xff.md"
    returns = cli("rvault-returns", "validate", tmp_path / os.fsdecode(b"\xfe.json"), "--db", db)
    assert returns.returncode == 2, returns.stderr
    assert returns.json["error"]["code"] == "argument_not_utf8"
    assert "Traceback" not in talk.stderr + returns.stderr
