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
import subprocess
import sys
import tempfile
from pathlib import Path

from distributions import ROOT, owner, owners, preinstall_order


def pipx_line(owner_name: str, root: str = "$PWD") -> list[str]:
    line = ["pipx", "install", "--preinstall", f"{root}/contracts"]
    for dep in preinstall_order(owner_name):
        line += ["--preinstall", f"{root}/packages/{dep}"]
    extras = owner(owner_name).install_extras
    return [*line, f"./packages/{owner_name}" + (f"[{','.join(extras)}]" if extras else "")]


def tree_megabytes(path: Path) -> float:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_symlink()) / 1e6


def check(owner_name: str) -> tuple[bool, str, float]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, PIPX_HOME=f"{home}/pipx", PIPX_BIN_DIR=f"{home}/bin")
        pipx = str(Path(sys.executable).with_name("pipx"))
        line = pipx_line(owner_name, str(ROOT))
        installed = subprocess.run(
            [pipx, *line[1:]], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        if installed.returncode != 0:
            return False, installed.stderr.strip().splitlines()[-1], 0.0
        version = subprocess.run(
            [f"{home}/bin/{owner(owner_name).script}", "--version"],
            capture_output=True,
            text=True,
            check=False,
        )
        size = tree_megabytes(Path(home) / "pipx" / "venvs")
        return version.returncode == 0, version.stdout.strip() or version.stderr.strip(), size


def main(argv: list[str]) -> int:
    names = argv or [d.owner for d in owners()]
    failures = 0
    print(f"{'owner':<22} {'ok':<4} {'MB':>6}  result / command")
    for name in names:
        ok, detail, size = check(name)
        failures += not ok
        print(f"{name:<22} {'yes' if ok else 'NO':<4} {size:>6.0f}  {detail}")
        print(f"{'':<27} {' '.join(pipx_line(name))}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
