"""Create each tool's hatch ``alone`` environment from published metadata only.

The networked twin of ``conformance/test_published_installs.py``, through
hatch itself: it builds the rvault wheels into a wheelhouse
(``distributions.build_wheelhouse``), then for each owner, in a throw-away
``HATCH_DATA_DIR``, runs

    HATCH_NO_SOURCES=1 PIP_FIND_LINKS=<wheelhouse> PIP_CONSTRAINT=tools/constraints.txt \\
        hatch env create alone.<owner>

(the ``alone`` matrix in the root pyproject.toml: one tool by name, no
workspace members; ``HATCH_NO_SOURCES`` turns its path sources off, so every
rvault distribution is resolved from the wheels' ``Requires-Dist``), then
``hatch run alone.<owner>:<script> --version`` and an import of its ``api``
module. Each installed rvault distribution must be the wheelhouse's (its
RECORD hashes match the built wheel's), so a same-named distribution on the
index cannot stand in. Third-party distributions come from the package index,
so this needs network access and is not part of ``make test``; prints a table
with each environment's size, exit 1 if any owner fails.

Usage: ``.venv/bin/python tools/check_published.py [OWNER ...]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from distributions import ROOT, Distribution, build_wheelhouse, owner, owners

HATCH = str(Path(sys.executable).with_name("hatch"))

# Run inside the environment (from a file: `hatch run` formats braces in a
# command): the RECORD of every installed rvault distribution.
_RECORDS = """
import json
from importlib import metadata
records = {}
for dist in metadata.distributions():
    if dist.metadata["Name"].startswith("rvault-"):
        records[dist.metadata["Name"]] = dist.read_text("RECORD")
print(json.dumps(records))
"""


def _record_lines(text: str) -> set[str]:
    """RECORD entries of Python files with their hashes (what installing cannot change)."""
    return {line for line in text.splitlines() if line.split(",")[0].endswith(".py")}


def _from_wheelhouse(records: dict[str, str], wheels: dict[str, Path]) -> list[str]:
    """Names of installed rvault distributions whose files are not those of our wheel."""
    foreign = []
    for name, record in sorted(records.items()):
        wheel = wheels.get(name)
        if wheel is None:
            foreign.append(f"{name} (not built here)")
            continue
        with zipfile.ZipFile(wheel) as archive:
            built = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
            expected = _record_lines(archive.read(built).decode())
        if not expected <= _record_lines(record):
            foreign.append(name)
    return foreign


def check(dist: Distribution, wheelhouse: Path, wheels: dict[str, Path], data: Path) -> tuple:
    env = dict(
        os.environ,
        HATCH_NO_SOURCES="1",
        HATCH_DATA_DIR=str(data),
        PIP_FIND_LINKS=str(wheelhouse),
        PIP_CONSTRAINT=str(ROOT / "tools" / "constraints.txt"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.pop("VIRTUAL_ENV", None)
    name = f"alone.{dist.owner}"

    def hatch(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [HATCH, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )

    started = time.monotonic()
    steps = [("create", ("env", "create", name)),
             ("version", ("run", f"{name}:{dist.script}", "--version"))]
    if (dist.directory / "src" / dist.module / "api.py").exists():
        steps.append(("api", ("run", f"{name}:python", "-c", f"import {dist.module}.api")))
    script = data.parent / "records.py"
    script.write_text(_RECORDS)
    steps.append(("records", ("run", f"{name}:python", str(script))))
    outputs = {}
    for stage, args in steps:
        done = hatch(*args)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return False, stage, lines[-1] if lines else "", 0.0, time.monotonic() - started
        outputs[stage] = done.stdout.strip()
    records = json.loads(outputs["records"].splitlines()[-1])
    foreign = _from_wheelhouse(records, wheels)
    size = sum(p.lstat().st_size for p in (data / "env").rglob("*") if not p.is_symlink()) / 1e6
    seconds = time.monotonic() - started
    if foreign:
        return False, "records", f"not from the wheelhouse: {foreign}", size, seconds
    detail = f"{outputs['version']}; rvault: {', '.join(sorted(records))}"
    return True, "done", detail, size, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("owners", nargs="*", help="owner directories (default: all)")
    args = parser.parse_args(argv)
    chosen = [owner(n) for n in args.owners] or owners()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rvault-published-") as tmp:
        wheelhouse = Path(tmp) / "wheelhouse"
        wheels = build_wheelhouse(wheelhouse)
        print(f"{'owner':<22} {'stage':<8} {'MB':>6} {'s':>6}  detail")
        for dist in chosen:
            data = Path(tmp) / f"hatch-{dist.owner}"
            ok, stage, detail, size, seconds = check(dist, wheelhouse, wheels, data)
            failures += not ok
            print(f"{dist.owner:<22} {stage:<8} {size:>6.0f} {seconds:>6.0f}  {detail}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
