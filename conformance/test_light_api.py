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


# A stand-in for an environment where the media libraries were never
# installed: every import of a heavy module (or a submodule) fails the way a
# missing distribution does, before anything else runs.
BLOCKER = (
    "import importlib.abc, sys\n"
    f"HEAVY = {HEAVY!r}\n"
    "class Absent(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in HEAVY:\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
    "        return None\n"
    "sys.meta_path.insert(0, Absent())\n"
    "for name in list(sys.modules):\n"
    "    if name.split('.')[0] in HEAVY:\n"
    "        del sys.modules[name]\n"
)


@pytest.mark.parametrize("target", [t for t in _targets() if t.endswith(".api")])
def test_api_imports_where_no_media_library_is_installed(target: str) -> None:
    """What other owners install of this package is its api: it must work alone."""
    code = BLOCKER + f"import importlib\nimportlib.import_module({target!r})\nprint('ok')\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (result.returncode, result.stdout.strip()) == (0, "ok"), result.stderr[-2000:]


def test_a_media_command_without_its_extra_is_a_refusal_with_a_hint(tmp_path: Path) -> None:
    video = tmp_path / "talk.mp4"
    video.write_bytes(b"\x00" * 64)
    argv = ["extract", str(video), str(tmp_path / "out"), "VIDxxxxxxxx"]
    code = BLOCKER + (
        f"from rvault_video_extraction.cli import main\nraise SystemExit(main({argv!r}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2, result.stdout + result.stderr[-2000:]
    document = json.loads(result.stdout)
    assert document["error"]["code"] == "dependency_missing"
    assert "[media]" in document["hint"]
    assert "Traceback" not in result.stderr
