"""Helpers for the read/assessment/mutation/migration tests (not a test module).

Imported from the tests directory, which each test module puts on ``sys.path``
(the suite runs with ``--import-mode=importlib``), like ``_queue_builders``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import artifact_bytes
from rvault_tracking_db.cli import main

DB_NAME = "tracking-database.json"


def write_json(path: Path, value: Any) -> Path:
    path.write_bytes(artifact_bytes(value))
    return path


def write_db(directory: Path, value: Any) -> Path:
    return write_json(directory / DB_NAME, value)


def plan(*mutations: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": 1, "mutations": list(mutations)}


def invoke(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any]]:
    """Run ``rvault-db`` in-process; return the exit code and the one JSON document."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def assert_refused(
    code: int, document: dict[str, Any], error_code: str, path: str | None = None
) -> None:
    assert code == 2, document
    assert document["ok"] is False
    assert "database" not in document
    assert document["error"]["code"] == error_code, document
    if path is not None:
        assert document["error"]["path"] == path, document
