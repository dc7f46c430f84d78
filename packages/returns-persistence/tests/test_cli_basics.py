"""Package-specific command-line refusals (the shared CLI shape is checked in
conformance/test_console_scripts.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


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
