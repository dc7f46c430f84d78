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


def _declare(root: Path, name: str, *depends: str) -> None:
    """A pyproject.toml for ``packages/<name>`` declaring the rvault owners ``depends``."""
    requirements = ", ".join(f'"rvault-{d}>=0.1"' for d in depends)
    (root / "packages" / name / "pyproject.toml").write_text(
        f'[project]\nname = "rvault-{name}"\ndependencies = ["rvault-contracts", {requirements}]\n'
    )


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


def test_an_import_against_the_declared_direction_is_refused(tmp_path: Path) -> None:
    """zzownb declares zzowna, so zzowna is the lower layer: its import of
    zzownb's public api goes upward and breaks the layers contract."""
    _package(tmp_path, "zzowna", {"api.py": "", "work.py": "import rvault_zzownb.api\n"})
    _package(tmp_path, "zzownb", {"api.py": "", "work.py": "import rvault_zzowna.api\n"})
    _declare(tmp_path, "zzowna")
    _declare(tmp_path, "zzownb", "zzowna")
    result = _check(tmp_path)
    assert result.returncode != 0
    assert "Dependencies go one way" in result.stdout and "BROKEN" in result.stdout


def test_a_declared_distribution_cycle_is_refused(tmp_path: Path) -> None:
    _package(tmp_path, "zzowna", {"api.py": ""})
    _package(tmp_path, "zzownb", {"api.py": ""})
    _declare(tmp_path, "zzowna", "zzownb")
    _declare(tmp_path, "zzownb", "zzowna")
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "distribution cycle: rvault_zzowna -> rvault_zzownb -> rvault_zzowna" in result.stderr
