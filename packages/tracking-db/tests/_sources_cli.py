"""In-process ``rvault-db`` runs for the sources tests: dry run, bound apply, refusal.

``test_sources.py`` and ``test_sources_fetch_result.py`` drive the same
commands through the same protocol (a dry run, then ``--apply`` bound to the
hash it reported), so they share these three helpers.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any
from unittest import mock

from rvault_contracts.schemas import schema_issues
from rvault_tracking_db.cli import main


def run(*args: str | Path, stdin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    """Exit code and stdout document; ``stdin`` feeds a ``-`` argument."""
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        if stdin is not None:
            stream = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
            stack.enter_context(mock.patch.object(sys, "stdin", stream))
        code = main([str(a) for a in args])
    return code, json.loads(out.getvalue())


def apply(*args: str | Path, stdin: bytes | None = None) -> dict[str, Any]:
    """Dry run, then ``--apply --expected-sha256`` of what it reported; the applied report."""
    code, dry = run(*args, stdin=stdin)
    assert code == 0, dry
    assert dry["mode"] == "dry-run" and dry["database_written"] is False
    code, applied = run(*args, "--apply", "--expected-sha256", dry["input_sha256"], stdin=stdin)
    assert code == 0, applied
    assert applied["output_sha256"] == dry["output_sha256"]
    assert schema_issues("db-source-report", 1, applied) == []
    return applied


def refused(result: tuple[int, dict[str, Any]], code: str) -> dict[str, Any]:
    """The ``cli-failure`` document of an exit-2 refusal with ``code``."""
    exit_code, document = result
    assert exit_code == 2, document
    assert document["error"]["code"] == code, document
    assert schema_issues("cli-failure", 1, document) == []
    return document
