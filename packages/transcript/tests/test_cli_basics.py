"""The console script answers --help and --version, and exits 0."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from rvault_transcript import __version__
from rvault_transcript.cli import main


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rvault-transcript {__version__}"


def test_help_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "usage: rvault-transcript" in capsys.readouterr().out


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rvault_transcript", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip().endswith(__version__)


def test_no_command_still_prints_one_json_document(cli: Any) -> None:
    """A bare `rvault-transcript` used to exit 2 with usage on stderr and an empty stdout."""
    result = cli("rvault-transcript")
    assert result.returncode == 2
    assert result.json == {
        "error": {
            "code": "usage_error",
            "message": "no COMMAND given; see usage on stderr",
            "path": None,
        },
        "ok": False,
    }
    assert "usage: rvault-transcript" in result.stderr
