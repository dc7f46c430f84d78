"""The rhetoric-vault distributions as an installer sees them.

One place for what the install checks (tools/check_pipx.py,
tools/install_alone.py, tools/check_published.py and the conformance test of
published metadata) need to know about the repository's distributions: where
each lives, its console script, the rvault distributions it declares, whether
it has a ``media`` extra (which its install line includes), and how to build
its wheel the way a release does (hatchling, from the checkout, no build
isolation: the wheel's ``Requires-Dist`` is what a user's installer reads).
"""

from __future__ import annotations

import re
import tomllib
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def requirement_name(requirement: str) -> str:
    """The distribution name of a PEP 508 requirement, normalized (PEP 503)."""
    name = re.split(r"[<>=!~\[;@ (]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Distribution:
    """One directory of the monorepo with its own ``pyproject.toml``."""

    directory: Path

    @cached_property
    def project(self) -> dict:
        return tomllib.loads((self.directory / "pyproject.toml").read_text())["project"]

    @property
    def name(self) -> str:
        return self.project["name"]

    @property
    def owner(self) -> str:
        """``tracking-db`` for ``packages/tracking-db``; ``contracts`` for contracts."""
        return self.directory.name

    @property
    def script(self) -> str | None:
        return next(iter(self.project.get("scripts", {})), None)

    @property
    def module(self) -> str:
        return self.name.replace("-", "_")

    @property
    def has_media_extra(self) -> bool:
        return "media" in self.project.get("optional-dependencies", {})

    @property
    def install_extras(self) -> list[str]:
        """The extras of the tool's own install line (README): ``media`` where it exists."""
        return ["media"] if self.has_media_extra else []

    @property
    def install_requirement(self) -> str:
        extras = self.install_extras
        return self.name + (f"[{','.join(extras)}]" if extras else "")

    def rvault_dependencies(self) -> list[str]:
        """Names of the rvault distributions the runtime dependencies declare, in order."""
        names = [requirement_name(r) for r in self.project.get("dependencies", [])]
        return [n for n in names if n.startswith("rvault-")]

    def build_wheel(self, directory: Path) -> Path:
        """Build this distribution's wheel into ``directory`` (as ``hatch build -t wheel``)."""
        from hatchling.builders.wheel import WheelBuilder

        built = list(WheelBuilder(str(self.directory)).build(directory=str(directory)))
        return Path(built[0])


def contracts(root: Path = ROOT) -> Distribution:
    return Distribution(root / "contracts")


def owners(root: Path = ROOT) -> list[Distribution]:
    """Every owner tool under ``packages/``, sorted by directory name."""
    return [Distribution(p.parent) for p in sorted((root / "packages").glob("*/pyproject.toml"))]


def owner(name: str, root: Path = ROOT) -> Distribution:
    return Distribution(root / "packages" / name)


def local_dependencies(owner_name: str, root: Path = ROOT) -> list[str]:
    """Owner directories (not contracts) that ``owner_name``'s runtime dependencies name."""
    present = {d.name: d.owner for d in owners(root)}
    return [present[n] for n in owner(owner_name, root).rvault_dependencies() if n in present]


def preinstall_order(owner_name: str, root: Path = ROOT) -> list[str]:
    """Every owner ``owner_name`` needs, directly or through another, dependencies first.

    pipx installs each ``--preinstall`` on its own from a checkout, so one
    whose own rvault dependency is not installed yet fails (the index has no
    rvault distributions): the list is the transitive closure, in an order
    where each owner comes after everything it depends on.
    """
    ordered: list[str] = []

    def visit(name: str) -> None:
        for dependency in sorted(local_dependencies(name, root)):
            if dependency not in ordered:
                visit(dependency)
                ordered.append(dependency)

    visit(owner_name)
    return ordered


def build_wheelhouse(directory: Path, root: Path = ROOT) -> dict[str, Path]:
    """Wheels of contracts and every owner in ``directory``, keyed by distribution name."""
    directory.mkdir(parents=True, exist_ok=True)
    return {d.name: d.build_wheel(directory) for d in [contracts(root), *owners(root)]}


def wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    """The wheel's ``METADATA`` headers (every value of each, in order)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(name).decode("utf-8"), headersonly=True)
    headers: dict[str, list[str]] = {}
    for key, value in message.items():
        headers.setdefault(key, []).append(value)
    return headers


def wheel_files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


# Test data that lives in rvault-testkit (issue 19): no runtime wheel ships it.
TEST_DATA_MODULES = ("sample_decks.py", "samples.py", "synthetic.py")


def shipped_test_data(wheel: Path) -> list[str]:
    """What in ``wheel`` is test data or needs the dev-only testkit (nothing may be)."""
    findings = []
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if Path(name).name in TEST_DATA_MODULES:
                findings.append(f"{name}: test data module")
            elif name.endswith(".py") and b"rvault_testkit" in archive.read(name):
                findings.append(f"{name}: imports the dev-only rvault_testkit")
    for requirement in wheel_metadata(wheel).get("Requires-Dist", []):
        if requirement_name(requirement) == "rvault-testkit":
            findings.append(f"Requires-Dist: {requirement}")
    return findings
