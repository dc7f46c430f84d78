"""Release one distribution of the monorepo, and keep unreleased changes written down.

Every owner (``contracts`` and each ``packages/<owner>``) is released on its own
cadence, with a tag ``<owner>-vX.Y.Z``. A release touches exactly two files of
that one package: the version in ``__about__.py`` (hatch reads it from there)
and its ``CHANGELOG.md``, whose unreleased section moves under the new version.
Nothing else in the tree changes, so a release can never drag another owner's
work along with it.

The CHANGELOG keeps one unreleased section at the top, ``## Unreleased``
(the older spelling ``## X.Y.Z (unreleased)`` of a version never tagged is read
the same way), optionally split into ``### Added`` / ``### Changed`` /
``### Fixed`` subsections. ``check`` fails when a package changed since its
last tag and its unreleased section is empty: after a release that section is
empty, so an entry there was written after the tag.

Usage::

    python tools/release.py prepare OWNER {major,minor,patch,current} [--dry-run] [--date ISO]
    python tools/release.py check [--owner OWNER ...]
    python tools/release.py edges OWNER

``edges`` lists the conformance test modules whose ``COVERS`` name the owner
as producer or consumer: the release workflow tests exactly the tagged
package and those edges.

``prepare`` prints a JSON plan (files changed, new version, tag, the ``git``
commands that commit and tag it) and, without ``--dry-run``, rewrites the two
files. ``current`` releases the version already in ``__about__.py`` (a first
release). Exit 0 on success, 2 on a refused input, 1 on an internal error.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("major", "minor", "patch", "current")
VERSION_LINE = re.compile(r'^__version__ = "(\d+)\.(\d+)\.(\d+)"$', re.MULTILINE)
UNRELEASED_HEADING = re.compile(
    r"^## (?:Unreleased|\d+\.\d+\.\d+ \(unreleased\))[ \t]*$", re.MULTILINE | re.IGNORECASE
)
SECTION_HEADING = re.compile(r"^## ", re.MULTILINE)


class ReleaseError(Exception):
    """A refused release: the message says what to fix."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Package:
    """One released distribution: where its version and changelog live."""

    owner: str
    directory: Path

    @property
    def about(self) -> Path:
        matches = sorted(self.directory.glob("src/*/__about__.py"))
        if len(matches) != 1:
            raise ReleaseError(
                "about_not_found", f"{self.directory}: expected one src/*/__about__.py"
            )
        return matches[0]

    @property
    def changelog(self) -> Path:
        return self.directory / "CHANGELOG.md"

    def tag(self, version: str) -> str:
        return f"{self.owner}-v{version}"


def packages(root: Path = ROOT) -> dict[str, Package]:
    """Every releasable owner, keyed by the name its tags carry."""
    found = {"contracts": Package("contracts", root / "contracts")}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        found[pyproject.parent.name] = Package(pyproject.parent.name, pyproject.parent)
    return found


def read_version(package: Package) -> tuple[int, int, int]:
    match = VERSION_LINE.search(package.about.read_text(encoding="utf-8"))
    if match is None:
        raise ReleaseError("version_unreadable", f'{package.about}: no __version__ = "X.Y.Z" line')
    major, minor, patch = (int(group) for group in match.groups())
    return major, minor, patch


def next_version(current: tuple[int, int, int], part: str) -> str:
    major, minor, patch = current
    if part == "major":
        major, minor, patch = major + 1, 0, 0
    elif part == "minor":
        minor, patch = minor + 1, 0
    elif part == "patch":
        patch += 1
    elif part != "current":
        raise ReleaseError("part_invalid", f"part must be one of {', '.join(PARTS)}, not {part!r}")
    return f"{major}.{minor}.{patch}"


def split_unreleased(text: str) -> tuple[str, str, str]:
    """``(before, unreleased body, after)`` of a changelog; the heading itself is dropped."""
    heading = UNRELEASED_HEADING.search(text)
    if heading is None:
        raise ReleaseError(
            "changelog_unreleased_missing",
            "CHANGELOG.md has no '## Unreleased' section; add one above the released versions",
        )
    rest = text[heading.end() :]
    following = SECTION_HEADING.search(rest)
    end = following.start() if following else len(rest)
    return text[: heading.start()], rest[:end], rest[end:]


def has_entries(body: str) -> bool:
    """An unreleased body counts when it holds a line that is not a heading or blank."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in body.splitlines())


def released_changelog(text: str, version: str, date: str) -> str:
    before, body, after = split_unreleased(text)
    if not has_entries(body):
        raise ReleaseError(
            "changelog_empty",
            "the Unreleased section of CHANGELOG.md is empty: write what this release changes",
        )
    entries = body.strip("\n")
    released = f"## Unreleased\n\n## {version} ({date})\n{entries}\n"
    return f"{before}{released}" + (f"\n{after}" if after else "")


def git_tags(owner: str, root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "tag", "--list", f"{owner}-v*", "--sort=-v:refname"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in listed.stdout.splitlines() if line]


def prepare(owner: str, part: str, *, root: Path, dry_run: bool, date: str) -> dict[str, object]:
    known = packages(root)
    if owner not in known:
        raise ReleaseError("owner_unknown", f"no package {owner!r}; known: {', '.join(known)}")
    package = known[owner]
    version = next_version(read_version(package), part)
    tag = package.tag(version)
    if tag in git_tags(owner, root):
        raise ReleaseError("tag_exists", f"tag {tag} already exists; choose major, minor or patch")
    about_text = package.about.read_text(encoding="utf-8")
    new_about = VERSION_LINE.sub(f'__version__ = "{version}"', about_text, count=1)
    new_changelog = released_changelog(package.changelog.read_text(encoding="utf-8"), version, date)
    changed = [package.about, package.changelog]
    if not dry_run:
        package.about.write_text(new_about, encoding="utf-8")
        package.changelog.write_text(new_changelog, encoding="utf-8")
    files = [path.relative_to(root).as_posix() for path in changed]
    return {
        "owner": owner,
        "version": version,
        "tag": tag,
        "files": files,
        "written": not dry_run,
        "next": [
            f"git commit -m 'Release {tag}' -- {' '.join(files)}",
            f"git tag -a {tag} -m '{tag}'",
        ],
    }


def changed_since(package: Package, tag: str | None, root: Path) -> bool:
    """Whether the package's files differ from its last tag (never tagged: always)."""
    if tag is None:
        return True
    diff = subprocess.run(
        ["git", "diff", "--name-only", f"{tag}..HEAD", "--", package.directory.relative_to(root)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(diff.stdout.strip())


def check(owners: list[str] | None, *, root: Path) -> dict[str, object]:
    known = packages(root)
    unknown = sorted(set(owners or ()) - set(known))
    if unknown:
        raise ReleaseError("owner_unknown", f"no package {', '.join(unknown)}")
    rows = []
    for owner in owners or sorted(known):
        package = known[owner]
        tags = git_tags(owner, root)
        last = tags[0] if tags else None
        changed = changed_since(package, last, root)
        _, body, _ = split_unreleased(package.changelog.read_text(encoding="utf-8"))
        documented = has_entries(body)
        rows.append(
            {
                "owner": owner,
                "last_tag": last,
                "changed": changed,
                "documented": documented,
                "ok": documented or not changed,
            }
        )
    return {"ok": all(row["ok"] for row in rows), "packages": rows}


def conformance_edges(owner: str, *, root: Path) -> list[str]:
    """Conformance modules exercising the owner, read from their ``COVERS`` literals."""
    if owner not in packages(root):
        raise ReleaseError("owner_unknown", f"no package {owner!r}")
    sys.path.insert(0, str(root / "conformance"))
    from _support import declared_covers  # the one reader of COVERS

    return sorted(
        f"conformance/{module}"
        for module, covers in declared_covers().items()
        if any(owner in (producer, consumer) for _, producer, consumer in covers)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare", help="bump one package and move its Unreleased notes")
    prep.add_argument("owner")
    prep.add_argument("part", choices=PARTS)
    prep.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    prep.add_argument("--date", default=dt.date.today().isoformat(), help="release date (ISO)")
    chk = commands.add_parser("check", help="every package changed since its tag has notes")
    chk.add_argument("--owner", action="append", dest="owners")
    edges = commands.add_parser("edges", help="conformance modules that exercise one owner")
    edges.add_argument("owner")
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            dt.date.fromisoformat(args.date)
            report = prepare(args.owner, args.part, root=ROOT, dry_run=args.dry_run, date=args.date)
            ok = True
        elif args.command == "edges":
            report = {"owner": args.owner, "modules": conformance_edges(args.owner, root=ROOT)}
            ok = True
        else:
            report = check(args.owners, root=ROOT)
            ok = bool(report["ok"])
    except ReleaseError as error:
        print(json.dumps({"ok": False, "error": {"code": error.code, "message": error.message}}))
        return 2
    except ValueError as error:
        print(json.dumps({"ok": False, "error": {"code": "date_invalid", "message": str(error)}}))
        return 2
    print(json.dumps(report, indent=2, sort_keys=True))
    if not ok:
        print(
            "release: a package changed since its last tag without a CHANGELOG entry",
            file=sys.stderr,
        )
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
