"""Prove the README's pipx line works for every owner, from this checkout.

For each owner it runs, in a throw-away PIPX_HOME,
``pipx install --preinstall "$PWD/contracts" [--preinstall ...] ./packages/<owner>``
(one ``--preinstall`` per rhetoric-vault distribution the owner depends on; pipx
runs the pre-installs from inside the new virtual environment, so their paths
must be absolute)
and then ``<script> --version``. Prints a table; exit 1 if any owner fails.
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
    return [*line, f"./packages/{owner}"]


def check(owner: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, PIPX_HOME=f"{home}/pipx", PIPX_BIN_DIR=f"{home}/bin")
        pipx = str(Path(sys.executable).with_name("pipx"))
        line = pipx_line(owner, str(ROOT))
        installed = subprocess.run(
            [pipx, *line[1:]], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        if installed.returncode != 0:
            return False, installed.stderr.strip().splitlines()[-1]
        version = subprocess.run(
            [f"{home}/bin/{script_of(owner)}", "--version"],
            capture_output=True,
            text=True,
            check=False,
        )
        return version.returncode == 0, version.stdout.strip() or version.stderr.strip()


def main(argv: list[str]) -> int:
    owners = argv or sorted(p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml"))
    failures = 0
    print(f"{'owner':<22} {'ok':<4} result / command")
    for owner in owners:
        ok, detail = check(owner)
        failures += not ok
        print(f"{owner:<22} {'yes' if ok else 'NO':<4} {detail}")
        print(f"{'':<27} {' '.join(pipx_line(owner))}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
