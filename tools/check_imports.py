"""Enforce the independence rule with import-linter.

The contracts are generated from what is on disk, so a new owner package or a
new public ``api`` module is covered without anyone editing a config file:

1. owners are independent: an owner may import another owner only through
   its public ``rvault_<owner>.api`` module;
2. ``rvault_contracts`` imports no owner at all;
3. every ``rvault_<owner>.api`` stays light: it never reaches OpenCV,
   faster-whisper/CTranslate2, python-pptx, PyAV, yt-dlp, the YouTube
   transcript client or lingua (96 MB of language models), directly or
   through a chain of imports;
4. dependencies go one way: the owners are layered by the rvault
   distributions their ``pyproject.toml`` declares (runtime and extras, not
   ``test``), ``rvault_contracts`` at the bottom, and a layer imports only the
   layers below it (a ``layers`` contract, printed with ``--print-config``).
   A declared distribution cycle is refused before import-linter runs.

Usage: ``python tools/check_imports.py [--print-config]``. Exit status is
import-linter's (0 when every contract is kept).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY_MODULES = (
    "cv2",
    "faster_whisper",
    "ctranslate2",
    "pptx",
    "av",
    "yt_dlp",
    "youtube_transcript_api",
    "lingua",
)


def owner_modules(root: Path = ROOT) -> list[str]:
    modules = []
    for src in sorted((root / "packages").glob("*/src")):
        modules.extend(p.name for p in sorted(src.iterdir()) if (p / "__init__.py").exists())
    return modules


def api_modules(owners: list[str], root: Path = ROOT) -> list[str]:
    found = []
    for module in owners:
        for src in (root / "packages").glob(f"*/src/{module}"):
            if (src / "api.py").exists() or (src / "api" / "__init__.py").exists():
                found.append(f"{module}.api")
    return found


def installed_heavy_modules() -> list[str]:
    import importlib.util

    return [name for name in HEAVY_MODULES if importlib.util.find_spec(name) is not None]


def _declared_owner_dependencies(root: Path) -> dict[str, set[str]]:
    """Owner module -> the owner modules its distribution declares (runtime and extras)."""
    declared: dict[str, set[str]] = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        module = "rvault_" + pyproject.parent.name.replace("-", "_")
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        extras = project.get("optional-dependencies", {})
        requirements = [*project.get("dependencies", [])]
        requirements += [r for name, group in extras.items() if name != "test" for r in group]
        names = {_requirement_name(r) for r in requirements}
        declared[module] = {
            "rvault_" + n.removeprefix("rvault-").replace("-", "_")
            for n in names
            if n.startswith("rvault-") and n != "rvault-contracts"
        } - {module}
    return declared


def _requirement_name(requirement: str) -> str:
    name = requirement.split(";")[0]
    for stop in "[<>=!~ ":
        name = name.split(stop)[0]
    return name.strip().lower()


def owner_layers(root: Path = ROOT) -> list[list[str]]:
    """The owners by dependency level, highest first (``rvault_contracts`` last).

    An owner's level is one above the highest owner it declares; owners on one
    level are independent of each other. Raises ``ValueError`` naming a cycle.
    """
    declared = _declared_owner_dependencies(root)
    level: dict[str, int] = {}

    def resolve(module: str, path: tuple[str, ...]) -> int:
        if module in path:
            raise ValueError("distribution cycle: " + " -> ".join([*path, module]))
        if module not in level:
            below = [resolve(dep, (*path, module)) for dep in declared.get(module, ())]
            level[module] = 1 + max(below, default=0)
        return level[module]

    for module in declared:
        resolve(module, ())
    top = max(level.values(), default=0)
    layers = [sorted(m for m, lv in level.items() if lv == n) for n in range(top, 0, -1)]
    return [*layers, ["rvault_contracts"]]


def build_config(root: Path = ROOT) -> str:
    owners = owner_modules(root)
    apis = api_modules(owners, root)
    lines = [
        "[importlinter]",
        "root_packages =",
        *(f"    {m}" for m in ["rvault_contracts", *owners]),
        "include_external_packages = True",
        "",
        "[importlinter:contract:owners-independent]",
        "name = Owners import each other only through their public api module",
        "type = independence",
        "unmatched_ignore_imports_alerting = none",
        "modules =",
        *(f"    {m}" for m in owners),
        "ignore_imports =",
    ]
    for importer in owners:
        for api in apis:
            if not api.startswith(importer + "."):
                lines.append(f"    {importer}.** -> {api}")
                lines.append(f"    {importer} -> {api}")
    lines += [
        "",
        "[importlinter:contract:contracts-import-no-owner]",
        "name = rvault_contracts imports no owner package",
        "type = forbidden",
        "source_modules =",
        "    rvault_contracts",
        "forbidden_modules =",
        *(f"    {m}" for m in owners),
        "",
    ]
    layers = owner_layers(root)
    if len(layers) > 1:
        lines += [
            "[importlinter:contract:owner-layers]",
            "name = Dependencies go one way: a layer imports only the layers below it",
            "type = layers",
            "layers =",
            *(f"    {' | '.join(layer)}" for layer in layers),
            "",
        ]
    heavy = installed_heavy_modules()
    if apis and heavy:
        lines += [
            "[importlinter:contract:light-public-api]",
            "name = Public api modules never import heavy media libraries",
            "type = forbidden",
            "source_modules =",
            *(f"    {m}" for m in apis),
            "forbidden_modules =",
            *(f"    {m}" for m in heavy),
            "",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print-config", action="store_true", help="print the generated config")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="monorepo root to check (default: this checkout)"
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        config = build_config(root)
    except ValueError as exc:  # a declared distribution cycle
        sys.stderr.write(f"check_imports: {exc}\n")
        return 1
    if args.print_config:
        sys.stdout.write(config)
        return 0
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as handle:
        handle.write(config)
        config_path = handle.name
    try:
        lint = Path(sys.executable).with_name("lint-imports")
        env = dict(os.environ)
        src_dirs = [str(p) for p in sorted(root.glob("packages/*/src"))]
        env["PYTHONPATH"] = os.pathsep.join([*src_dirs, env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        return subprocess.run(
            [str(lint), "--no-cache", "--no-logo", config_path], cwd=root, env=env, check=False
        ).returncode
    finally:
        Path(config_path).unlink(missing_ok=True)


if __name__ == "__main__":
    raise SystemExit(main())
