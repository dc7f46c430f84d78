"""The console script answers --help and --version, and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_video_extraction import __version__
from rvault_video_extraction.cli import main


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rvault-video {__version__}"


def test_help_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "usage: rvault-video" in capsys.readouterr().out


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rvault_video_extraction", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip().endswith(__version__)


def test_no_command_is_a_usage_error_with_one_json_document(
    cli: Callable[..., Any],
) -> None:
    result = cli("rvault-video")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "usage_error"


def test_non_utf8_argument_is_refused_with_one_json_document(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    undecodable = os.fsdecode(b"\xffmanifest.json")
    result = cli("rvault-video", "validate", tmp_path / undecodable, "--vault-root", tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.json["error"]["code"] == "argument_not_utf8"
    assert result.json["error"]["path"].endswith("\\xffmanifest.json")
    assert "Traceback" not in result.stderr
