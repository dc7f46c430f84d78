"""Prove the README's pipx line works for every owner, from this checkout.

For each owner it runs, in a throw-away PIPX_HOME,
``pipx install --preinstall "$PWD/contracts" [--preinstall ...] ./packages/<owner>``
(one ``--preinstall`` per rhetoric-vault distribution the owner depends on; pipx
runs the pre-installs from inside the new virtual environment, so their paths
must be absolute)
and then ``<script> --version``. An owner with a ``media`` extra (the
libraries only its own media commands need) is installed as
``./packages/<owner>[media]``; other owners preinstall it without the extra,
for its light api readers. Prints a table with each installed environment's
size; exit 1 if any owner fails.
Needs network access to the package index; not part of ``make test``.

Usage: ``.venv/bin/python tools/check_pipx.py [OWNER ...]``
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def local_dependencies(owner: str) -> list[str]:
    project = tomllib.loads((ROOT / "packages" / owner / "pyproject.toml").read_text())["project"]
    deps = []
    for requirement in project.get("dependencies", []):
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
        if name.startswith("rvault-") and name != "rvault-contracts":
            dep_dir = name.removeprefix("rvault-")
            if (ROOT / "packages" / dep_dir).is_dir():
                deps.append(dep_dir)
    return deps


def script_of(owner: str) -> str:
    project = tomllib.loads((ROOT / "packages" / owner / "pyproject.toml").read_text())["project"]
    return next(iter(project["scripts"]))


def pipx_line(owner: str, root: str = "$PWD") -> list[str]:
    line = ["pipx", "install", "--preinstall", f"{root}/contracts"]
    for dep in local_dependencies(owner):
        line += ["--preinstall", f"{root}/packages/{dep}"]
    return [*line, f"./packages/{owner}" + ("[media]" if has_media_extra(owner) else "")]


def has_media_extra(owner: str) -> bool:
    project = tomllib.loads((ROOT / "packages" / owner / "pyproject.toml").read_text())["project"]
    return "media" in project.get("optional-dependencies", {})


def tree_megabytes(path: Path) -> float:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_symlink()) / 1e6


def check(owner: str) -> tuple[bool, str, float]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, PIPX_HOME=f"{home}/pipx", PIPX_BIN_DIR=f"{home}/bin")
        pipx = str(Path(sys.executable).with_name("pipx"))
        line = pipx_line(owner, str(ROOT))
        installed = subprocess.run(
            [pipx, *line[1:]], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        if installed.returncode != 0:
            return False, installed.stderr.strip().splitlines()[-1], 0.0
        version = subprocess.run(
            [f"{home}/bin/{script_of(owner)}", "--version"],
            capture_output=True,
            text=True,
            check=False,
        )
        size = tree_megabytes(Path(home) / "pipx" / "venvs")
        return version.returncode == 0, version.stdout.strip() or version.stderr.strip(), size


def main(argv: list[str]) -> int:
    owners = argv or sorted(p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml"))
    failures = 0
    print(f"{'owner':<22} {'ok':<4} {'MB':>6}  result / command")
    for owner in owners:
        ok, detail, size = check(owner)
        failures += not ok
        print(f"{owner:<22} {'yes' if ok else 'NO':<4} {size:>6.0f}  {detail}")
        print(f"{'':<27} {' '.join(pipx_line(owner))}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
