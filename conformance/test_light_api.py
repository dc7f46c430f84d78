"""Importing an owner package or its public api never loads a heavy library.

The runtime twin of the import-linter contract in tools/check_imports.py: it
sees real transitive imports, including those of package ``__init__`` modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = util.spec_from_file_location("check_imports", ROOT / "tools" / "check_imports.py")
assert _spec is not None and _spec.loader is not None
_check_imports = util.module_from_spec(_spec)
_spec.loader.exec_module(_check_imports)
HEAVY = list(_check_imports.HEAVY_MODULES)  # the same list the import-linter contract forbids
OWNER_MODULES = sorted(p.name for p in ROOT.glob("packages/*/src/rvault_*") if p.is_dir())


def _targets() -> list[str]:
    targets = []
    for module in OWNER_MODULES:
        targets.append(module)
        if util.find_spec(f"{module}.api") is not None:
            targets.append(f"{module}.api")
    return targets


@pytest.mark.parametrize("target", _targets())
def test_import_is_light(target: str) -> None:
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({target!r})\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []
