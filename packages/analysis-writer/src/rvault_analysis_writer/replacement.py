"""Batch-transactional replacement of rendered files in one output directory.

Either every analysis of a batch is replaced or none is. This module owns
the preflight a person's output directory needs (names that collide once
Unicode-normalized or case-folded with an existing entry, directories and
special files where a file would go, an unwritable directory) and hands the
commit to ``rvault_contracts.writer.replace_entries``: every body staged
first, existing targets linked to same-directory recovery backups during
commit and restored in reverse order on any failure, a symlink target
replaced as a directory entry without following it. The static site reuses
it unchanged.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.cli import Refusal
from rvault_contracts.writer import (
    BundleReport,
    EntrySnapshot,
    FaultHook,
    WriterError,
    read_entry,
    replace_entries,
    settle_pending_bundle,
)

#: The persistent lock every writer of one output directory takes (never deleted).
LOCK_TARGET_NAME = ".rvault-analysis"


def fold(name: str) -> str:
    """The key two names collide on: NFC-normalized, then case-folded (and NFC again)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


@dataclass(frozen=True)
class Plan:
    """What the preflight saw; :func:`commit` installs exactly against it.

    ``create`` is set when the output directory itself is missing but its
    parent exists: commit creates it (and removes it again if the commit
    fails), so a first render into a fresh vault needs no extra step.
    """

    directory: Path
    expected: Mapping[str, EntrySnapshot]
    create: bool = False


def _refuse(code: str, message: str, path: str, hint: str, **context: object) -> Refusal:
    return Refusal(code, message, path, hint=hint, **context)


def _unreadable(directory: Path, exc: OSError) -> Refusal:
    return _refuse(
        "output_directory_unreadable",
        f"{directory}: {exc.strerror or exc}",
        str(directory),
        "check the permissions of the output directory",
    )


def _check_directory(directory: Path) -> bool:
    """Refuse an unusable OUTDIR; True when it is missing and will be created."""
    try:
        st = directory.stat()
    except FileNotFoundError:
        parent = directory.parent
        if directory.is_symlink() or not parent.is_dir():
            raise _refuse(
                "output_directory_missing",
                f"{directory} does not exist and neither does its parent directory"
                if not directory.is_symlink()
                else f"{directory} is a dangling symbolic link",
                str(directory),
                "create the vault first, or pass an existing directory (e.g. VAULT/analyses)",
            ) from None
        if not os.access(parent, os.W_OK | os.X_OK):
            raise _refuse(
                "output_directory_unwritable",
                f"{parent} is not writable, so {directory.name} cannot be created",
                str(parent),
                "make the parent directory writable for this user",
            ) from None
        return True
    except OSError as exc:
        raise _unreadable(directory, exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(
            "output_directory_not_directory",
            f"{directory} is not a directory",
            str(directory),
            "pass the analyses directory as OUTDIR",
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise _refuse(
            "output_directory_unwritable",
            f"{directory} is not writable",
            str(directory),
            "make the output directory writable for this user",
        )
    return False


def preflight(directory: Path, names: list[str]) -> Plan:
    """Refuse before anything is written; return the snapshot of every target.

    Names are compared with every existing entry after normalization and
    case folding, so ``Talk.md`` never silently sits beside ``talk.md`` and a
    decomposed ``é`` never shadows a composed one. A hidden entry that is
    this writer's own lock or a staged/recovery name is ignored.
    """
    create = _check_directory(directory)
    for name in names:
        if not name or name in (".", "..") or "/" in name or "\x00" in name or name.startswith("."):
            raise _refuse(
                "target_name_invalid",
                f"{name!r} is not a plain visible file name",
                str(directory / name),
                "talk filenames must be plain names such as 2024-04-10-talk.md",
            )
    folded: dict[str, str] = {}
    for name in names:
        key = fold(name)
        if key in folded:
            raise _refuse(
                "target_collision",
                f"{name!r} and {folded[key]!r} are the same name once normalized/case-folded",
                str(directory / name),
                "rename one of the talks in the tracking database",
                targets=sorted([name, folded[key]]),
            )
        folded[key] = name
    if create:
        return Plan(directory, {name: EntrySnapshot(name, "missing") for name in names}, True)
    _settle(directory)
    try:
        existing = sorted(p.name for p in directory.iterdir())
    except OSError as exc:
        raise _unreadable(directory, exc) from None
    for entry in existing:
        key = fold(entry)
        if key in folded and folded[key] != entry:
            raise _refuse(
                "target_collision",
                f"{folded[key]!r} collides with the existing entry {entry!r} "
                "(same name once normalized/case-folded)",
                str(directory / entry),
                "rename or remove the existing entry, then render again",
                targets=[folded[key]],
                existing=entry,
            )
    expected: dict[str, EntrySnapshot] = {}
    for name in names:
        try:
            expected[name] = read_entry(directory, name)
        except WriterError as exc:
            kind = exc.context.get("kind")
            code = {"directory": "target_is_directory", "special": "target_special_file"}.get(
                str(kind), "target_unreadable"
            )
            raise _refuse(
                code,
                exc.message,
                str(directory / name),
                "move the entry away; only regular files and symlinks are replaced",
                writer_error=exc.code,
            ) from None
    return Plan(directory, expected)


def _settle(directory: Path) -> None:
    """Settle a replacement a kill left half done before its entries are read.

    Its journal (under this directory's lock) says which entries are old and
    which new. Read torn, the snapshots would be settled under the commit and
    the commit refused as ``input_changed``; settled first (one ``lstat`` when
    there is no journal), the writer reads one whole generation and does its job.
    """
    try:
        settle_pending_bundle(directory, directory / LOCK_TARGET_NAME)
    except WriterError as exc:
        raise _refuse(
            exc.code,
            f"the interrupted replacement in {directory} could not be settled: {exc.message}",
            str(directory),
            "run the command again once the other writer of this directory has finished",
        ) from None


def commit(plan: Plan, bodies: Mapping[str, bytes], fault: FaultHook | None = None) -> BundleReport:
    """Install every body against the preflight snapshot, or restore everything."""
    if plan.create:
        try:
            plan.directory.mkdir(0o755)
        except FileExistsError:
            raise _refuse(
                "target_changed",
                f"{plan.directory} was created by another program meanwhile",
                str(plan.directory),
                "render again",
            ) from None
        except OSError as exc:
            raise _refuse(
                "output_directory_unwritable",
                f"cannot create {plan.directory}: {exc.strerror or exc}",
                str(plan.directory),
                "make the parent directory writable for this user",
            ) from None
    try:
        return _replace(plan, bodies, fault)
    except BaseException:
        if plan.create:
            _remove_created(plan.directory)
        raise


def _remove_created(directory: Path) -> None:
    """Undo a directory this commit created: only its lock file may be in it."""
    with suppress(OSError):
        (directory / f"{LOCK_TARGET_NAME}.lock").unlink()
    with suppress(OSError):
        directory.rmdir()


def _replace(plan: Plan, bodies: Mapping[str, bytes], fault: FaultHook | None) -> BundleReport:
    try:
        return replace_entries(
            plan.directory,
            bodies,
            expected=plan.expected,
            lock_target=plan.directory / LOCK_TARGET_NAME,
            fault=fault,
        )
    except WriterError as exc:
        if exc.code == "input_changed":
            raise _refuse(
                "target_changed",
                exc.message,
                exc.path or str(plan.directory),
                "another program changed the output directory; render again",
            ) from None
        if exc.code == "io_error" and isinstance(exc.__cause__, PermissionError):
            raise _refuse(
                "output_directory_unwritable",
                exc.message,
                str(plan.directory),
                "make the output directory writable for this user",
            ) from None
        raise
