"""Which packages must CI test for a change?

A package is selected when its own files changed, or when a contract it
consumes (or produces) changed: a schema file under
``contracts/src/rvault_contracts/schemas/<artifact>/`` selects that
artifact's producer and consumers from the registry. A change to a file that
an owner's public ``api`` module imports (its import closure inside the owner,
derived from the source) also selects every package that declares that owner
as a dependency, since they run on that reader. A change to the shared
contract code (anything else under ``contracts/``) or to the build itself
(root files, ``tools/``, ``.github/``) selects every package, because every
owner runs on it. ``conformance/`` always runs in CI and selects nothing.

Usage::

    python tools/changed_packages.py [--base REV] [--head REV]   # git diff BASE...HEAD
    python tools/changed_packages.py --files a b c               # explicit paths

Prints a JSON object ``{"packages": [...], "contracts": bool}`` on stdout
(``packages`` holds directory names under ``packages/``), ready for a GitHub
Actions matrix.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS_PREFIX = "contracts/src/rvault_contracts/schemas/"
REGISTRY_PATH = ROOT / "contracts/src/rvault_contracts/registry.json"


def all_packages(root: Path = ROOT) -> list[str]:
    return sorted(p.parent.name for p in (root / "packages").glob("*/pyproject.toml"))


def load_registry(path: Path = REGISTRY_PATH) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["artifacts"]


def api_closure(package_dir: Path) -> set[Path]:
    """Files of one owner that importing its ``api`` module loads (package ``__init__`` too)."""
    sources = package_dir / "src"
    roots = sorted(sources.glob("*/api.py"))
    if not roots:
        return set()
    top = roots[0].parent
    seen: set[Path] = set()
    pending = [top / "__init__.py", roots[0]]
    while pending:
        module = pending.pop()
        if module in seen or not module.is_file():
            continue
        seen.add(module)
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] != top.name:
                    continue
                target = sources.joinpath(*parts)
                pending += [target.with_suffix(".py"), target / "__init__.py"]
                parents = range(1, len(parts))
                pending += [sources.joinpath(*parts[:depth], "__init__.py") for depth in parents]
    return seen


def api_users(root: Path = ROOT) -> dict[str, set[str]]:
    """Repo-relative path of every api-closure file -> the packages depending on its owner."""
    distributions: dict[str, str] = {}
    requirements: dict[str, set[str]] = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        distributions[project["name"]] = pyproject.parent.name
        requirements[pyproject.parent.name] = {
            req.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip()
            for req in project.get("dependencies", [])
        }
    users: dict[str, set[str]] = {}
    for distribution, owner in distributions.items():
        dependents = {name for name, reqs in requirements.items() if distribution in reqs}
        if not dependents:
            continue
        for path in api_closure(root / "packages" / owner):
            users[path.relative_to(root).as_posix()] = dependents
    return users


def select(
    paths: Iterable[str],
    registry: dict,
    packages: list[str],
    users: Mapping[str, set[str]] | None = None,
) -> dict[str, object]:
    chosen: set[str] = set()
    contracts_changed = False
    for path in paths:
        if path.startswith("packages/"):
            name = path.split("/")[1]
            if name in packages:
                chosen.add(name)
            chosen.update(name for name in (users or {}).get(path, ()) if name in packages)
        elif path.startswith(SCHEMAS_PREFIX):
            contracts_changed = True
            artifact = path[len(SCHEMAS_PREFIX) :].split("/")[0]
            entry = registry.get(artifact)
            if entry is None:  # a new or removed artifact: its owners are unknown here
                chosen.update(packages)
                continue
            for name in (entry["producer"], *entry["consumers"]):
                if name in packages:
                    chosen.add(name)
        elif path.startswith("contracts/"):
            contracts_changed = True
            chosen.update(packages)
        elif path.startswith("conformance/") or path.endswith(".md"):
            continue
        else:  # root build files, tools/, .github/, .ci/
            chosen.update(packages)
    return {"contracts": contracts_changed, "packages": sorted(chosen)}


def git_changed(base: str, head: str) -> list[str]:
    result = subprocess.run(
        ["git", "diff", "--name-only", f"{base}...{head}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in result.stdout.splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="origin/main")
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--files", nargs="*", help="use these paths instead of git diff")
    args = parser.parse_args(argv)
    paths = args.files if args.files is not None else git_changed(args.base, args.head)
    result = select(paths, load_registry(), all_packages(), api_users())
    sys.stdout.write(json.dumps(result, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
