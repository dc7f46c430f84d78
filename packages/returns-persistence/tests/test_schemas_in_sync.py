"""The committed worker-return and report schemas equal what the builder generates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BUILDER = Path(__file__).resolve().parents[3] / "tools" / "build_schemas.py"


def test_committed_schemas_match_the_builder() -> None:
    done = subprocess.run(
        [sys.executable, str(BUILDER), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
