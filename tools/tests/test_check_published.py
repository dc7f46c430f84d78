"""check_published accepts only rvault distributions installed from our own wheels."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import check_published
import distributions


def test_an_installed_distribution_must_carry_the_built_wheels_files(tmp_path: Path) -> None:
    wheel = distributions.contracts().build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        record = archive.read(next(n for n in archive.namelist() if n.endswith("RECORD"))).decode()
    # pip adds its own lines (INSTALLER, compiled files); ours must all be there.
    installed = record + "rvault_contracts-0.1.0.dist-info/INSTALLER,sha256=x,4\n"
    wheels = {"rvault-contracts": wheel}
    assert check_published._from_wheelhouse({"rvault-contracts": installed}, wheels) == []
    first = next(line for line in record.splitlines() if line.split(",")[0].endswith(".py"))
    path, _, size = first.split(",")
    other = record.replace(first, f"{path},sha256=another,{size}")
    assert check_published._from_wheelhouse({"rvault-contracts": other}, wheels) == [
        "rvault-contracts"
    ]
    assert check_published._from_wheelhouse({"rvault-squatter": record}, wheels) == [
        "rvault-squatter (not built here)"
    ]


def test_hatch_sources_and_alone_matrix_name_every_distribution() -> None:
    import tomllib

    hatch = tomllib.loads((distributions.ROOT / "pyproject.toml").read_text())["tool"]["hatch"]
    dists = [distributions.contracts(), *distributions.owners()]
    # Every environment takes each rvault distribution from the workspace.
    assert hatch["sources"] == {
        **{d.name: {"workspace": True} for d in dists},
        "rvault-testkit": {"path": "testkit"},
    }
    alone = hatch["envs"]["alone"]
    assert sorted(alone["matrix"][0]["owner"]) == sorted(d.owner for d in distributions.owners())
    assert alone["sources"] == {
        d.name: {"path": str(d.directory.relative_to(distributions.ROOT)), "editable": False}
        for d in dists
    }
    media = {o["value"] for o in alone["overrides"]["matrix"]["owner"]["dependencies"]}
    assert media == {d.install_requirement for d in distributions.owners() if d.install_extras}
