"""Install a rendered site into OUTDIR as one transaction, or change nothing.

The site is a flat directory of files, so it is replaced exactly as
``write`` replaces analyses: :mod:`rvault_analysis_writer.replacement`
preflights every target (normalized/case-fold collisions, directories and
special files at target names, an unwritable directory) and commits through
``rvault_contracts.writer.replace_entries`` (every body staged first,
same-directory recovery backups, reverse-order restore, a symlink target
replaced as an entry, never followed).

What the site adds: OUTDIR is created when it does not exist (and removed
again if the install is refused), a non-empty OUTDIR must hold the
``site.json`` of an earlier site (a site is never mixed into some other
directory), and files of the earlier site that this one no longer has are
reported as ``stale``, never deleted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict
from rvault_contracts.writer import BundleReport, FaultHook, read_entry

from rvault_analysis_writer import replacement

MANIFEST = "site.json"


@dataclass(frozen=True)
class Installed:
    report: BundleReport
    written: tuple[str, ...]
    unchanged: int
    stale: tuple[str, ...]


def _previous_files(outdir: Path) -> set[str]:
    """File names of the earlier site in OUTDIR (empty for an empty directory)."""
    try:
        names = [p.name for p in outdir.iterdir()]
    except OSError as exc:
        raise Refusal(
            "output_directory_unreadable",
            f"{outdir}: {exc.strerror or exc}",
            str(outdir),
            hint="check the permissions of the output directory",
        ) from None
    visible = [n for n in names if not n.startswith(".")]
    if MANIFEST not in names:
        if visible:
            raise Refusal(
                "output_directory_not_site",
                f"{outdir} is not empty and holds no {MANIFEST} of an earlier site",
                str(outdir),
                hint="choose a new or empty directory for the site",
            )
        return set()
    try:
        document = loads_strict(read_entry(outdir, MANIFEST).data or b"")
        files = document["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (StrictJSONError, KeyError, TypeError):
        raise Refusal(
            "site_manifest_invalid",
            f"{outdir / MANIFEST} is not a site manifest",
            str(outdir / MANIFEST),
            hint="choose a new directory, or move the old site away",
        ) from None
    return {name for name in files if isinstance(name, str)}


def install_site(
    outdir: Path, bodies: Mapping[str, bytes], fault: FaultHook | None = None
) -> Installed:
    created = not os.path.lexists(outdir)
    if created:
        try:
            outdir.mkdir()
        except OSError as exc:
            raise Refusal(
                "output_directory_missing",
                f"cannot create {outdir}: {exc.strerror or exc}",
                str(outdir),
                hint="create the parent directory first",
            ) from None
    try:
        plan = replacement.preflight(outdir, sorted(bodies))
        previous = _previous_files(outdir)
        report = replacement.commit(plan, bodies, fault)
    except BaseException:
        if created:  # leave the parent as it was: drop the directory this run made
            with suppress(OSError):
                (outdir / f"{replacement.LOCK_TARGET_NAME}.lock").unlink()
            with suppress(OSError):
                outdir.rmdir()
        raise
    written = tuple(sorted(n for n, r in report.files.items() if r.database_written))
    return Installed(
        report=report,
        written=written,
        unchanged=len(bodies) - len(written),
        stale=tuple(sorted(previous - set(bodies))),
    )
