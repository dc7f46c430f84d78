"""The published-metadata check catches what the workspace hides.

Each test damages one built wheel the way a forgotten declaration would and
shows ``install_alone.check_alone`` stops at the stage a user would: an rvault
dependency dropped from ``Requires-Dist`` (pip never installs it, an import
fails), a third-party one dropped (it is absent from the new environment too),
a requirement nothing provides (pip refuses). The test-data check flags a
fixture module or a testkit import in a wheel.
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import distributions
import install_alone

# One worker runs this module (make test: --dist loadgroup), so its module
# fixture (the wheelhouse) is built once, not once per xdist worker.
pytestmark = pytest.mark.xdist_group("install-alone")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return distributions.build_wheelhouse(tmp_path_factory.mktemp("pristine"))


def rewrite_wheel(wheel: Path, edit) -> None:
    """Rewrite ``wheel`` in place, passing each member's (name, bytes) through ``edit``."""
    temporary = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(temporary, "w") as target:
        for info in source.infolist():
            data = edit(info.filename, source.read(info.filename))
            if data is not None:
                target.writestr(info.filename, data)
    temporary.replace(wheel)


def drop_requirement(wheel: Path, name: str) -> None:
    def edit(member: str, data: bytes) -> bytes:
        if not member.endswith(".dist-info/METADATA"):
            return data
        lines = data.decode().split("\n")
        kept = [
            line
            for line in lines
            if not (
                line.startswith("Requires-Dist:")
                and distributions.requirement_name(line.split(":", 1)[1]) == name
            )
        ]
        assert len(kept) == len(lines) - 1, f"{name} is not declared exactly once"
        return "\n".join(kept).encode()

    rewrite_wheel(wheel, edit)


def damaged_wheelhouse(built: dict[str, Path], tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    directory = tmp_path / "wheelhouse"
    directory.mkdir()
    return directory, {name: Path(shutil.copy2(w, directory)) for name, w in built.items()}


def test_an_undeclared_rvault_dependency_fails_the_import(
    built: dict[str, Path], tmp_path: Path
) -> None:
    directory, wheels = damaged_wheelhouse(built, tmp_path)
    drop_requirement(wheels["rvault-returns-persistence"], "rvault-tracking-db")
    result = install_alone.check_alone(
        distributions.owner("returns-persistence"), directory, wheels, tmp_path
    )
    assert result.stage in ("version", "imports"), result
    assert "rvault_tracking_db" in result.detail
    site = next((tmp_path / "venv-returns-persistence" / "lib").glob("python*/site-packages"))
    assert not (site / "rvault_tracking_db").exists()  # nothing else pulled it in


def test_an_undeclared_third_party_dependency_is_absent_too(
    built: dict[str, Path], tmp_path: Path
) -> None:
    directory, wheels = damaged_wheelhouse(built, tmp_path)
    drop_requirement(wheels["rvault-tracking-db"], "pyyaml")
    result = install_alone.check_alone(
        distributions.owner("tracking-db"), directory, wheels, tmp_path
    )
    assert result.stage == "imports", result
    assert "rvault_tracking_db.shownotes.frontmatter: ModuleNotFoundError" in result.detail
    assert "'yaml'" in result.detail


def test_a_requirement_nothing_provides_is_an_install_failure(
    built: dict[str, Path], tmp_path: Path
) -> None:
    directory, wheels = damaged_wheelhouse(built, tmp_path)
    declared = b"Requires-Dist: rvault-absent>=1\nRequires-Dist:"

    def add(member: str, data: bytes) -> bytes:
        if member.endswith(".dist-info/METADATA"):
            return data.replace(b"Requires-Dist:", declared, 1)
        return data

    rewrite_wheel(wheels["rvault-video-extraction"], add)
    result = install_alone.check_alone(
        distributions.owner("video-extraction"), directory, wheels, tmp_path
    )
    assert result.stage == "install", result
    assert "rvault-absent" in result.detail


def test_the_closure_follows_extras_and_markers(built: dict[str, Path]) -> None:
    installed = install_alone.installed_third_party()
    light = install_alone.third_party_closure("rvault-returns-persistence", built, installed)
    media = install_alone.third_party_closure("rvault-video-extraction[media]", built, installed)
    assert "pypdf" in light and "jsonschema" in light and "rpds-py" in light  # transitive
    assert not {"opencv-python-headless", "av", "numpy", "pytest"} & light
    assert {"opencv-python-headless", "av", "numpy"} <= media


def test_shipped_test_data_names_fixture_modules_and_testkit_imports(tmp_path: Path) -> None:
    wheel = tmp_path / "rvault_x-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("rvault_x/__init__.py", "")
        archive.writestr("rvault_x/samples.py", "DATA = 1\n")
        archive.writestr("rvault_x/cli.py", "from rvault_testkit.plugin import console_script\n")
        archive.writestr(
            "rvault_x-0.1.0.dist-info/METADATA",
            "Metadata-Version: 2.4\nName: rvault-x\nVersion: 0.1.0\n"
            "Requires-Dist: rvault-testkit>=0.1\n",
        )
    assert distributions.shipped_test_data(wheel) == [
        "rvault_x/samples.py: test data module",
        "rvault_x/cli.py: imports the dev-only rvault_testkit",
        "Requires-Dist: rvault-testkit>=0.1",
    ]
