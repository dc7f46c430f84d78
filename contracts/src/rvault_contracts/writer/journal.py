"""A bundle's intent journal: its format and how an interrupted one is settled."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.strict_json import StrictJSONError, loads_strict
from rvault_contracts.writer.fs import _check_name, _os_error, _sha256, _stat_name
from rvault_contracts.writer.snapshot import _read_current
from rvault_contracts.writer.staging import _discard_staged, _stage
from rvault_contracts.writer.values import WriterError

# A bundle's intent journal. Before the first name of a bundle is installed,
# ``.<lock-target-name>.bundle-journal`` is written and fsynced in the bundle
# directory: for every pending name its prior and new SHA-256 and the staged
# and rollback copies (fsynced too) that can rebuild either side. It is
# removed only once every name is the new generation and the directory is
# fsynced, or a rollback restored every prior file. A journal found later is
# the mark of an interrupted transaction (SIGKILL, power loss), and the next
# writer of that bundle (``install_bundle``, or any :func:`writer_lock` /
# install on the lock target, which share the lock) settles it before doing
# anything else, under the lock:
# - every name already holds its new bytes (or is absent, for a deletion):
#   the transaction completed; only the copies and the journal are removed;
# - otherwise every name holding its new bytes is put back from its rollback
#   copy (or removed, when it was created), so the set is all old again;
# - a name holding neither side, or a needed copy that is missing or has other
#   bytes, is ``bundle_recovery_conflict``: nothing is touched and the journal
#   stays, so no later run can guess.

BUNDLE_JOURNAL_VERSION = 1


def _state_at(dir_fd: int, name: str, shown: str) -> str:
    """``missing``, ``file:<sha256>`` or ``symlink:<text>`` for one entry (never followed)."""
    try:
        st = _stat_name(dir_fd, name)
        if st is not None and stat.S_ISLNK(st.st_mode):
            return "symlink:" + os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        raise _os_error(exc, "cannot inspect", shown) from exc
    current = _read_current(dir_fd, name, shown)
    return "missing" if current.data is None else "file:" + _sha256(current.data)


def _prior_state(entry: Mapping[str, Any]) -> str:
    if entry.get("prior_link") is not None:
        return "symlink:" + entry["prior_link"]
    sha = entry["prior_sha256"]
    return "missing" if sha is None else "file:" + sha


def _new_state(entry: Mapping[str, Any]) -> str:
    sha = entry["new_sha256"]
    return "missing" if sha is None else "file:" + sha


def _write_journal(dir_fd: int, journal: str, body: dict[str, Any], shown: str) -> None:
    staged = _stage(dir_fd, journal, artifact_bytes(body), None, "staged", shown, None)
    try:
        os.replace(staged.name, journal, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        _discard_staged(staged)  # never installed: our staged name goes
        raise
    try:
        os.fsync(dir_fd)
    finally:
        with suppress(OSError):
            staged.close()


def _remove_journal(dir_fd: int, journal: str) -> str | None:
    """Unlink the journal and fsync the directory; a problem is returned, not raised."""
    try:
        os.unlink(journal, dir_fd=dir_fd)
        os.fsync(dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"bundle_journal_cleanup_failed: {exc}"
    return None


def _journal_entries(body: Any, shown: str) -> list[dict[str, Any]]:
    def bad(why: str) -> WriterError:
        return WriterError("bundle_journal_invalid", f"bundle journal {why}", shown)

    if not isinstance(body, dict) or body.get("version") != BUNDLE_JOURNAL_VERSION:
        raise bad("has an unknown version")
    entries = body.get("entries")
    if not isinstance(entries, list) or not entries:
        raise bad("lists no entries")
    for entry in entries:
        if not isinstance(entry, dict):
            raise bad("entry is not an object")
        for key in ("name", "prior_sha256", "new_sha256", "staged", "rollback", "prior_link"):
            value = entry.get(key)
            if value is not None and not isinstance(value, str):
                raise bad(f"field {key} is not a string")
        for key in ("name", "staged", "rollback"):
            value = entry.get(key)
            if value is not None:
                _check_name(value, shown)
        if entry.get("name") is None:
            raise bad("entry has no name")
    return entries


def _settle_journal(dir_fd: int, journal: str, shown_dir: str) -> dict[str, Any] | None:
    """Complete or roll back the interrupted transaction ``journal`` records.

    Returns ``None`` when there is no journal, else what was done
    (``{"action": "completed" | "rolled_back", "names": [...]}``). Raises
    ``bundle_recovery_conflict`` (nothing touched) when the files match
    neither generation.
    """
    shown = f"{shown_dir}/{journal}"
    raw = _read_current(dir_fd, journal, shown)
    if raw.data is None:
        return None
    try:
        body = loads_strict(raw.data)
    except StrictJSONError as exc:
        raise WriterError(
            "bundle_journal_invalid", f"bundle journal is not strict JSON: {exc.message}", shown
        ) from None
    entries = _journal_entries(body, shown)
    now = {e["name"]: _state_at(dir_fd, e["name"], f"{shown_dir}/{e['name']}") for e in entries}
    complete = all(now[e["name"]] == _new_state(e) for e in entries)
    restore: list[dict[str, Any]] = []
    if not complete:
        restore = _entries_to_restore(dir_fd, entries, now, shown)
        _restore_prior(dir_fd, restore, shown)
    _drop_copies(dir_fd, entries)
    problem = _remove_journal(dir_fd, journal)
    if problem is not None:
        raise WriterError("io_error", problem, shown)
    return {
        "action": "completed" if complete else "rolled_back",
        "names": [e["name"] for e in (entries if complete else restore)],
    }


def _entries_to_restore(
    dir_fd: int, entries: list[dict[str, Any]], now: dict[str, str], shown: str
) -> list[dict[str, Any]]:
    """The entries holding their new side, to be put back; a conflict touches nothing."""
    conflicts = []
    restore: list[dict[str, Any]] = []
    for entry in entries:
        current, prior = now[entry["name"]], _prior_state(entry)
        if current == prior:
            continue
        if current != _new_state(entry):
            conflicts.append(f"{entry['name']}: holds neither the old nor the new bytes")
            continue
        if prior != "missing":
            copy = entry["rollback"]
            if copy is None or _state_at(dir_fd, copy, shown) != prior:
                conflicts.append(f"{entry['name']}: its rollback copy is missing or altered")
                continue
        restore.append(entry)
    if conflicts:
        raise WriterError(
            "bundle_recovery_conflict",
            "an interrupted bundle transaction cannot be settled: " + "; ".join(conflicts),
            shown,
            problems=conflicts,
        )
    return restore


def _restore_prior(dir_fd: int, restore: list[dict[str, Any]], shown: str) -> None:
    """Put every entry back to its prior side (reverse order), then fsync."""
    for entry in reversed(restore):
        try:
            if _prior_state(entry) == "missing":
                os.unlink(entry["name"], dir_fd=dir_fd)
            else:
                os.replace(entry["rollback"], entry["name"], src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            raise _os_error(exc, "bundle recovery failed", shown) from exc
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        raise _os_error(exc, "bundle recovery fsync failed", shown) from exc


def _drop_copies(dir_fd: int, entries: list[dict[str, Any]]) -> None:
    """Remove the staged and rollback copies a settled journal names (files or links only)."""
    for entry in entries:
        for key in ("staged", "rollback"):
            copy = entry[key]
            if copy is None:
                continue
            with suppress(OSError):
                named = _stat_name(dir_fd, copy)
                if named is not None and (
                    stat.S_ISREG(named.st_mode) or stat.S_ISLNK(named.st_mode)
                ):
                    os.unlink(copy, dir_fd=dir_fd)
