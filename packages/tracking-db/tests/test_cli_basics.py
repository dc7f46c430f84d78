"""Package-specific command-line refusals (the shared CLI shape is checked in
conformance/test_console_scripts.py)."""

from __future__ import annotations

import json

import pytest
from rvault_tracking_db.cli import main


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
