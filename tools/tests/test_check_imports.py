"""tools/check_imports.py keeps the rules and fails when one is broken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "check_imports.py"


def _package(root: Path, name: str, files: dict[str, str]) -> None:
    src = root / "packages" / name / "src" / f"rvault_{name}"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    for filename, body in files.items():
        (src / filename).write_text(body)


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_this_checkout_keeps_every_contract() -> None:
    result = _check(TOOL.parent.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


def test_import_through_the_public_api_is_allowed(tmp_path: Path) -> None:
    _package(tmp_path, "zzowna", {"api.py": "from rvault_zzowna import inner\n", "inner.py": ""})
    _package(tmp_path, "zzownb", {"work.py": "import rvault_zzowna.api\n"})
    result = _check(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_of_another_owners_internals_is_refused(tmp_path: Path) -> None:
    _package(tmp_path, "zzowna", {"api.py": "", "inner.py": ""})
    _package(tmp_path, "zzownb", {"work.py": "import rvault_zzowna.inner\n"})
    result = _check(tmp_path)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout


@pytest.mark.parametrize("heavy", ["cv2", "pptx", "faster_whisper"])
def test_heavy_import_in_a_public_api_is_refused(tmp_path: Path, heavy: str) -> None:
    _package(
        tmp_path,
        "zzowna",
        {"api.py": "from rvault_zzowna import inner\n", "inner.py": f"import {heavy}\n"},
    )
    result = _check(tmp_path)
    assert result.returncode != 0
    assert "Public api modules never import heavy media libraries BROKEN" in result.stdout
