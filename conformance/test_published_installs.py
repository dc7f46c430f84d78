"""Each tool installs alone from its published metadata (``HATCH_NO_SOURCES=1``).

The workspace hides a missing declaration: every rvault distribution is
installed editable side by side, so an owner that imports another it never
declared still works here and breaks for a user. These tests build the wheels
a release would upload, install each tool by name with pip from that
wheelhouse only, in a fresh environment that sees just the third-party
distributions the metadata names (``tools/install_alone.py``), then run its
``--version`` and import every module of its package. They also check that no
runtime wheel ships the test data that lives in rvault-testkit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import distributions
import install_alone

# One worker runs this module (make test: --dist loadgroup), so its module
# fixture (the wheelhouse) is built once, not once per xdist worker.
pytestmark = pytest.mark.xdist_group("published-installs")

OWNERS = [d.owner for d in distributions.owners()]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    directory = tmp_path_factory.mktemp("wheelhouse")
    return directory, distributions.build_wheelhouse(directory)


def test_every_distribution_has_a_wheel(wheelhouse: tuple[Path, dict[str, Path]]) -> None:
    _, wheels = wheelhouse
    assert sorted(wheels) == sorted(NAMES)
    assert len(OWNERS) == 7


@pytest.mark.parametrize("owner", OWNERS)
def test_tool_installs_alone_from_its_published_metadata(
    owner: str, wheelhouse: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    directory, wheels = wheelhouse
    dist = distributions.owner(owner)
    result = install_alone.check_alone(dist, directory, wheels, tmp_path)
    assert result.stage == "done", f"{result.requirement}: {result.stage}: {result.detail}"
    version = distributions.wheel_metadata(wheels[dist.name])["Version"][0]
    assert result.detail.startswith(f"{dist.script} {version}; ")
    site = next((tmp_path / f"venv-{owner}" / "lib").glob("python*/site-packages"))
    installed = sorted(p.name for p in site.iterdir())
    # Installed from wheels: real package directories, no editable finder or path file.
    assert dist.module in installed and "rvault_contracts" in installed
    assert not [n for n in installed if n.startswith("__editable__") or n.startswith("_editable")]


NAMES = ["rvault-contracts", *(distributions.owner(o).name for o in OWNERS)]


@pytest.mark.parametrize("name", NAMES)
def test_runtime_wheel_ships_no_test_data(
    name: str, wheelhouse: tuple[Path, dict[str, Path]]
) -> None:
    _, wheels = wheelhouse
    files = distributions.wheel_files(wheels[name])
    assert any(f.endswith(".dist-info/METADATA") for f in files)
    assert distributions.shipped_test_data(wheels[name]) == []
