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
    undecodable = os.fsdecode(b"\xffmanifest.json")
    result = cli("rvault-video", "validate", tmp_path / undecodable, "--vault-root", tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.json["error"]["code"] == "argument_not_utf8"
    assert result.json["error"]["path"].endswith("\\xffmanifest.json")
    assert "Traceback" not in result.stderr
