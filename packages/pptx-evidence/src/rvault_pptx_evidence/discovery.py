"""Scan a presentation folder inside the directory-scan worker.

The owner never stats or enumerates the root; this runs in the supervised
worker and returns a private root-relative manifest (schema v2). Traversal
is handle-relative: every directory is opened with ``O_NOFOLLOW |
O_DIRECTORY`` relative to its parent's descriptor, so a component swapped for
a symlink mid-scan is refused rather than followed. For every entry,
symlink rejection runs before the case-insensitive exact-component exclusion
check. An excluded directory yields one receipt, is not traversed and is
charged to the separate policy ceiling (as are PowerPoint ``~$`` lock files),
so cache folders cannot starve authored siblings of the eligible-entry
ceiling. Exhausting either ceiling, the deck ceiling or the depth bound is
recorded, and enumeration stops; the scan stays bounded.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_pptx_evidence.batch_contract import (
    MAX_PATH_CHARS,
    canonical_relative_path,
    incomplete_reason_codes,
)
from rvault_pptx_evidence.source import file_generation

MANIFEST_SCHEMA_VERSION = 2
ROOT_INVALID = "pptx_batch_root_invalid"
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class DirectoryLimits:
    max_entries: int = 100_000
    max_decks: int = 2_000
    max_policy_entries: int = 10_000
    max_depth: int = 32


class _Stop(Exception):
    pass


@dataclass
class _Scan:
    exclusions: frozenset[str]
    limits: DirectoryLimits
    decks: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    entries: int = 0
    policy: int = 0

    def skip(self, path: str, reason: str) -> None:
        self.skipped.append({"path": path, "reason": reason})

    def charge(self, policy: bool) -> None:
        if policy:
            self.policy += 1
            over = self.policy > self.limits.max_policy_entries
        else:
            self.entries += 1
            over = self.entries > self.limits.max_entries
        if over:
            self.skip(".", "pptx_batch_entry_limit")
            raise _Stop

    def walk(self, fd: int, rel: str, depth: int) -> None:
        with os.scandir(fd) as iterator:
            entries = sorted(iterator, key=lambda e: e.name)
        for entry in entries:
            name = entry.name
            child = name if rel == "." else f"{rel}/{name}"
            try:
                name.encode("utf-8")
                readable = canonical_relative_path(child) and len(child) <= MAX_PATH_CHARS
            except UnicodeEncodeError:
                readable = False
            is_lock = name.startswith("~$") and name.casefold().endswith(".pptx")
            is_dir = entry.is_dir(follow_symlinks=False)
            excluded = is_dir and name.casefold() in self.exclusions
            self.charge(policy=is_lock or excluded)
            if not readable:
                self.skip(".", "pptx_batch_name_invalid")  # the name itself cannot be reported
            elif entry.is_symlink():
                self.skip(child, "pptx_batch_symlink_refused")
            elif excluded:
                self.skip(child, "pptx_batch_directory_excluded")
            elif is_dir:
                self.directory(fd, name, child, depth + 1)
            elif name.casefold().endswith(".pptx"):
                self.deck(fd, name, child, is_lock)

    def directory(self, parent_fd: int, name: str, rel: str, depth: int) -> None:
        if depth > self.limits.max_depth:
            self.skip(rel, "pptx_batch_depth_limit")
            return
        try:
            fd = os.open(name, DIRECTORY_FLAGS, dir_fd=parent_fd)
        except OSError as exc:
            reason = (
                "pptx_batch_symlink_refused"
                if exc.errno in (errno.ELOOP, errno.ENOTDIR)
                else "pptx_batch_directory_unreadable"
            )
            self.skip(rel, reason)
            return
        try:
            self.walk(fd, rel, depth)
        except PermissionError:
            self.skip(rel, "pptx_batch_directory_unreadable")
        finally:
            os.close(fd)

    def deck(self, parent_fd: int, name: str, rel: str, is_lock: bool) -> None:
        if is_lock:
            self.skip(rel, "pptx_batch_lock_file")
            return
        try:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except OSError:
            self.skip(rel, "pptx_batch_special_file")
            return
        if not stat.S_ISREG(st.st_mode):
            self.skip(rel, "pptx_batch_special_file")
            return
        if len(self.decks) >= self.limits.max_decks:
            self.skip(".", "pptx_batch_file_limit")
            raise _Stop
        self.decks.append({"path": rel, "generation": list(file_generation(st))})


def scan_directory(root: Path, params: dict[str, Any]) -> dict[str, Any]:
    """The private schema-v2 manifest of ``root`` (see the module docstring)."""
    exclusions = list(params["exclusions"])
    limits = DirectoryLimits(**params["limits"])
    try:
        fd = os.open(root, DIRECTORY_FLAGS)
    except OSError as exc:
        why = {
            errno.ENOENT: "does not exist",
            errno.ELOOP: "is a symlink",
            errno.ENOTDIR: "is not a directory",
        }.get(exc.errno or 0, f"cannot be opened ({exc.strerror})")
        raise Refusal(ROOT_INVALID, f"the --directory root {why}", str(root)) from None
    scan = _Scan(frozenset(name.casefold() for name in exclusions), limits)
    try:
        scan.walk(fd, ".", 0)
    except _Stop:
        pass
    except PermissionError:
        raise Refusal(ROOT_INVALID, "the --directory root cannot be listed", str(root)) from None
    finally:
        os.close(fd)
    # One receipt per (path, reason): a repeated root-level reason says nothing more.
    unique = {(s["path"], s["reason"]): s for s in scan.skipped}
    skipped = sorted(unique.values(), key=lambda s: (s["path"], s["reason"]))
    codes = incomplete_reason_codes(skipped)
    return {
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "kind": "pptx_directory_manifest",
        "exclusions": exclusions,
        "limits": params["limits"],
        "decks": scan.decks,
        "skipped": skipped,
        "complete": not codes,
        "incomplete_reason_codes": codes,
    }
