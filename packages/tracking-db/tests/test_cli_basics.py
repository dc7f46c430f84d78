"""The console script answers --help and --version, and exits 0."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from rvault_tracking_db import __version__
from rvault_tracking_db.cli import main


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rvault-db {__version__}"


def test_help_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "usage: rvault-db" in capsys.readouterr().out


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rvault_tracking_db", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip().endswith(__version__)


@pytest.mark.parametrize("argv", [[], ["queue", "DB"]])
def test_missing_command_or_action_is_one_usage_error_document(
    tmp_path, capsys: pytest.CaptureFixture[str], snapshot_tree, argv: list[str]
) -> None:
    """A bare ``rvault-db`` or ``queue DB`` without an action used to print only help on stderr."""
    db = tmp_path / "tracking-database.json"
    db.write_bytes(b"{}\n")
    before = snapshot_tree(tmp_path)
    code = main([str(db) if a == "DB" else a for a in argv])
    captured = capsys.readouterr()
    assert code == 2
    document = json.loads(captured.out)
    assert document["ok"] is False and document["error"]["code"] == "usage_error"
    assert "required" in captured.err
    assert snapshot_tree(tmp_path) == before
