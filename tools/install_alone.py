"""Install each tool from its published metadata alone, and run it.

What ``HATCH_NO_SOURCES=1`` means for a release: no workspace paths, no
editable installs, nothing but the built wheels' ``Requires-Dist``. For one
owner this

1. builds the wheels of contracts and every owner into a wheelhouse (the
   artifacts a release uploads; ``distributions.build_wheelhouse``);
2. creates a fresh virtual environment (no pip, no rvault code) that sees,
   through one ``.pth`` file, an overlay of symlinks to the third-party
   distributions already installed here: only those the tool's metadata names,
   transitively (wheels' and installed distributions' ``Requires-Dist``,
   markers and extras evaluated). A dependency the metadata forgets is absent,
   as in a user's install, but nothing is downloaded, so it runs offline and
   in seconds;
3. runs ``pip install --no-index --find-links WHEELHOUSE <tool>[<extras>]``
   (the extras of the tool's own install line), so every rvault distribution
   comes from the wheelhouse, resolved from metadata only;
4. runs ``<script> --version`` and imports every module of the tool's package
   (its ``api`` included), each of which must load from the new environment.

The overlay lives outside the new environment's prefix, so pip treats what it
holds as foreign and never uninstalls through a symlink.

Usage: ``.venv/bin/python tools/install_alone.py [OWNER ...]`` prints a table;
exit 1 if any owner fails. ``conformance/test_published_installs.py`` runs the
same check for every owner inside ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from distributions import Distribution, build_wheelhouse, owner, owners, wheel_metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])

# Run inside the new environment: import the whole package, report where each
# rvault module was loaded from. ``__main__`` modules run a tool when imported.
_IMPORT_ALL = """
import importlib, json, pkgutil, sys
module, prefix = sys.argv[1], sys.argv[2]
failed = {}
names = [module]
try:
    package = importlib.import_module(module)
    names += [m.name for m in pkgutil.walk_packages(
        package.__path__, module + ".", onerror=lambda name: failed.setdefault(name, "walk"))]
except Exception as error:
    failed[module] = f"{type(error).__name__}: {error}"
for name in names:
    if name.endswith(".__main__") or name in failed:
        continue
    try:
        importlib.import_module(name)
    except Exception as error:
        failed[name] = f"{type(error).__name__}: {error}"
outside = sorted(
    name for name, mod in sys.modules.items()
    if name.split(".")[0].startswith("rvault_")
    and getattr(mod, "__file__", None) and not mod.__file__.startswith(prefix)
)
print(json.dumps({"modules": len(names), "failed": failed, "outside": outside}))
"""


@dataclass(frozen=True)
class Outcome:
    """What happened to one owner: ``stage`` is where it stopped (``done`` if nowhere)."""

    owner: str
    requirement: str
    stage: str
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.stage == "done"


def installed_third_party(site: Path = SITE_PACKAGES) -> dict[str, metadata.Distribution]:
    """The non-rvault distributions installed in ``site``, by normalized name."""
    found = {}
    for dist in metadata.distributions(path=[str(site)]):
        name = canonicalize_name(dist.metadata["Name"])
        if not name.startswith("rvault-"):
            found.setdefault(name, dist)
    return found


def third_party_closure(
    requirement: str,
    wheels: Mapping[str, Path],
    installed: Mapping[str, metadata.Distribution],
) -> set[str]:
    """Third-party distributions ``requirement`` needs, following ``Requires-Dist``.

    rvault distributions are followed through the wheels' metadata, others
    through the installed distributions'. A name found in neither is left for
    pip to report.
    """
    wheel_requires = {
        canonicalize_name(name): wheel_metadata(path).get("Requires-Dist", [])
        for name, path in wheels.items()
    }
    needed: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(requirement)]
    while todo:
        current = todo.pop()
        name = canonicalize_name(current.name)
        key = (name, frozenset(current.extras))
        if key in seen:
            continue
        seen.add(key)
        if name in wheel_requires:
            requires = wheel_requires[name]
        elif name in installed:
            needed.add(name)
            requires = installed[name].requires or []
        else:
            continue
        extras = current.extras or {""}
        for line in requires:
            dependency = Requirement(line)
            marker = dependency.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
                todo.append(dependency)
    return needed


def build_overlay(
    directory: Path, names: set[str], installed: Mapping[str, metadata.Distribution]
) -> None:
    """Symlink each named distribution's top-level files (and its dist-info) into ``directory``."""
    directory.mkdir(parents=True)
    for name in sorted(names):
        dist = installed[name]
        files = dist.files
        if files is None:
            raise RuntimeError(f"{name} has no RECORD; cannot tell which files are its own")
        base = Path(str(dist.locate_file("")))
        for top in sorted({f.parts[0] for f in files}):
            if top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            link = directory / top
            if not link.exists() and (base / top).exists():
                link.symlink_to(base / top)


def fresh_environment(path: Path, overlay: Path) -> Path:
    """A virtual environment without pip whose only extra path is ``overlay``."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(path)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    (Path(purelib) / "_rvault_overlay.pth").write_text(f"{overlay}\n")
    return python


def _clean_env() -> dict[str, str]:
    """The caller's environment without what would leak workspace code or settings in."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PIP_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def check_alone(
    dist: Distribution,
    wheelhouse: Path,
    wheels: Mapping[str, Path],
    work: Path,
    installed: Mapping[str, metadata.Distribution] | None = None,
) -> Outcome:
    """Install ``dist`` from ``wheelhouse`` into a fresh environment under ``work``, run it."""
    started = time.monotonic()
    installed = installed_third_party() if installed is None else installed
    requirement = dist.install_requirement

    def outcome(stage: str, detail: str) -> Outcome:
        return Outcome(dist.owner, requirement, stage, detail, time.monotonic() - started)

    overlay = work / f"overlay-{dist.owner}"
    env_dir = work / f"venv-{dist.owner}"
    build_overlay(overlay, third_party_closure(requirement, wheels, installed), installed)
    python = fresh_environment(env_dir, overlay)
    env = _clean_env()
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-index", "--no-cache-dir", "--find-links", str(wheelhouse), requirement],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )
    if pip.returncode != 0:
        return outcome("install", _last_line(pip.stderr) or _last_line(pip.stdout))
    script = env_dir / "bin" / str(dist.script)
    version = subprocess.run(
        [str(script), "--version"], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    if version.returncode != 0:
        return outcome("version", _last_line(version.stderr) or _last_line(version.stdout))
    imports = subprocess.run(
        [str(python), "-c", _IMPORT_ALL, dist.module, str(env_dir)],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )
    if imports.returncode != 0:
        return outcome("imports", _last_line(imports.stderr))
    report = json.loads(imports.stdout)
    if report["failed"] or report["outside"]:
        detail = "; ".join(f"{k}: {v}" for k, v in sorted(report["failed"].items()))
        if report["outside"]:
            detail += f"; loaded from outside the environment: {report['outside']}"
        return outcome("imports", detail.strip("; "))
    return outcome("done", f"{version.stdout.strip()}; {report['modules']} modules import")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("owners", nargs="*", help="owner directories (default: all)")
    args = parser.parse_args(argv)
    chosen = [owner(name) for name in args.owners] or owners()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rvault-alone-") as tmp:
        wheelhouse = Path(tmp) / "wheelhouse"
        wheels = build_wheelhouse(wheelhouse)
        installed = installed_third_party()
        print(f"{'owner':<22} {'stage':<8} {'s':>5}  requirement: detail")
        for dist in chosen:
            result = check_alone(dist, wheelhouse, wheels, Path(tmp), installed)
            failures += not result.ok
            print(
                f"{result.owner:<22} {result.stage:<8} {result.seconds:>5.1f}  "
                f"{result.requirement}: {result.detail}"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
