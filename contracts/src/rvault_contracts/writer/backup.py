"""The content-addressed backup ``install`` keeps of a replaced file."""

from __future__ import annotations

import errno
import os
import re
import stat
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from rvault_contracts.writer.fs import (
    _O_CLOEXEC,
    _O_DIRECTORY,
    _O_NOFOLLOW,
    _check_name,
    _identity,
    _open_dir,
    _os_error,
    _sha256,
    _stat_name,
)
from rvault_contracts.writer.snapshot import _read_current
from rvault_contracts.writer.staging import _stage, _sweep_leftovers
from rvault_contracts.writer.values import WriterError


@dataclass
class _Backup:
    path: str
    created: bool
    dir_fd: int
    name: str
    identity: tuple[int, int]
    created_dir: bool
    parent_fd: int | None
    dir_name: str
    created_ancestors: list[Path] = field(default_factory=list)

    def close(self) -> None:
        with suppress(OSError):
            os.close(self.dir_fd)
        if self.parent_fd is not None:
            with suppress(OSError):
                os.close(self.parent_fd)

    def undo(self) -> None:
        """Remove a backup this transaction created (identity-checked), then close."""
        try:
            if self.created:
                named = _stat_name(self.dir_fd, self.name)
                if named is not None and _identity(named) == self.identity:
                    os.unlink(self.name, dir_fd=self.dir_fd)
            if self.created_dir and self.parent_fd is not None:
                with suppress(OSError):
                    os.rmdir(self.dir_name, dir_fd=self.parent_fd)
                for ancestor in reversed(self.created_ancestors):
                    with suppress(OSError):
                        ancestor.rmdir()
        except OSError:
            pass
        finally:
            self.close()


def _create_ancestors(directory: Path, shown: str) -> list[Path]:
    """Create missing ancestors top-down; return the ones created (for undo)."""
    missing: list[Path] = []
    probe = directory
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    created: list[Path] = []
    for path in reversed(missing):
        try:
            path.mkdir(0o755)
        except FileExistsError:
            continue
        except OSError as exc:
            for done in reversed(created):
                with suppress(OSError):
                    done.rmdir()
            raise WriterError("io_error", f"cannot create {path}: {exc}", shown) from exc
        created.append(path)
    return created


def _open_backup_dir(backup_dir: Path) -> tuple[int, int, bool, list[Path]]:
    """Open (creating if missing) the backup directory without following a symlink.

    Its parent may be reached through a symlink (like the vault root); the
    backup directory itself may not. Returns (parent_fd, dir_fd, created,
    created ancestors) so a refused transaction can remove what it created.
    """
    shown = str(backup_dir)
    _check_name(backup_dir.name, shown)
    ancestors = _create_ancestors(backup_dir.parent, shown)
    try:
        parent_fd = _open_dir(backup_dir.parent)
    except BaseException:
        for done in reversed(ancestors):
            with suppress(OSError):
                done.rmdir()
        raise
    created = False
    try:
        try:
            os.mkdir(backup_dir.name, 0o755, dir_fd=parent_fd)
            created = True
        except FileExistsError:
            pass
        try:
            dir_fd = os.open(
                backup_dir.name,
                os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC,
                dir_fd=parent_fd,
            )
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                named = _stat_name(parent_fd, backup_dir.name)
                if named is not None and stat.S_ISLNK(named.st_mode):
                    raise WriterError(
                        "symlink_refused", f"backup directory {shown} is a symbolic link", shown
                    ) from exc
                raise WriterError(
                    "not_regular_file", f"backup path {shown} is not a directory", shown
                ) from exc
            raise _os_error(exc, "cannot open backup directory", shown) from exc
    except BaseException:
        os.close(parent_fd)
        for done in reversed(ancestors):
            with suppress(OSError):
                done.rmdir()
        raise
    return parent_fd, dir_fd, created, ancestors


def _write_backup(backup_dir: Path, target_name: str, data: bytes) -> _Backup:
    """Store ``data`` as ``<name>.<sha256>.bak``; never overwrite an existing backup.

    The copy is staged and fsynced, then hard-linked to its final name
    (``linkat`` fails when the name exists), so a crash never leaves a partial
    file under the final name.
    """
    digest = _sha256(data)
    name = f"{target_name}.{digest}.bak"
    shown = str(backup_dir / name)
    parent_fd, dir_fd, created_dir, ancestors = _open_backup_dir(backup_dir)
    backup = _Backup(
        shown, False, dir_fd, name, (0, 0), created_dir, parent_fd, backup_dir.name, ancestors
    )
    try:
        backup_name = re.compile(re.escape(target_name) + r"\.[0-9a-f]{64}\.bak")
        _sweep_leftovers(dir_fd, lambda base: backup_name.fullmatch(base) is not None)
        staged = _stage(dir_fd, name, data, None, "staged", shown, None)
        try:
            try:
                os.link(
                    staged.name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False
                )
                backup.created = True
                backup.identity = staged.identity
            except FileExistsError:
                existing = _read_current(dir_fd, name, shown)
                if existing.data != data:
                    raise WriterError(
                        "backup_conflict",
                        f"{shown} exists with other bytes; backups are never overwritten",
                        shown,
                    ) from None
            except OSError as exc:
                # linkat's EMLINK means too many links, not a symlink (unlike an open's)
                raise WriterError(
                    "io_error", f"cannot link backup: {exc.strerror or exc}", shown
                ) from exc
        finally:
            # The staged name now has a second link: remove only our name.
            try:
                named = _stat_name(dir_fd, staged.name)
                if named is not None and _identity(named) == staged.identity:
                    os.unlink(staged.name, dir_fd=dir_fd)
            finally:
                staged.close()
        os.fsync(dir_fd)
        if created_dir:
            os.fsync(parent_fd)
    except WriterError:
        backup.undo()
        raise
    except OSError as exc:
        backup.undo()
        raise _os_error(exc, "cannot write backup", shown) from exc
    except BaseException:
        backup.undo()
        raise
    return backup
