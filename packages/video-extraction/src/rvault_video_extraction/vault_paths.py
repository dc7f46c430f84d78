"""Vault path rules for manifests (light: standard library only).

The spec requires every manifest path to be native absolute, symlink-resolved
at extraction time, inside the configured vault storage root, free of NUL,
raw dot segments, ``~``, drive/device syntax, foreign (Windows) flavour and
the dual-flavour ``//`` prefix, and to name non-symlink descendants. A
configured vault root may itself be a symlink: it is admitted as the root
locator and mapped to its storage target; anything below it must not be a
symlink. This module implements the POSIX flavour of those rules.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from rvault_contracts.issues import Issue

from rvault_video_extraction.errors import VideoExtractionError

CONTRACT_DIR = "slides-rebuild"


def manifest_path(video_id: str) -> str:
    """Vault-relative path of a video's manifest, where every reader looks for it.

    ``slides-rebuild/{id}/{id}.video-extraction.json`` beside the video
    (``{id}.mp4``) and its PDFs; status, scaffold and the vault report must
    agree on it, so they ask this owner instead of spelling it.
    """
    return f"{CONTRACT_DIR}/{video_id}/{video_id}.video-extraction.json"


_DRIVE = re.compile(r"^[A-Za-z]:")


#: What a manifest path must be, the default message of :func:`path_text_issues`.
PATH_TEXT_RULE = "manifest paths are native absolute without dot segments, ~, NUL or foreign syntax"


def path_text_issues(text: str, where: str = "$", message: str = PATH_TEXT_RULE) -> list[Issue]:
    """Syntactic problems of a manifest path string at JSON path ``where`` (empty when clean).

    One coded :class:`~rvault_contracts.issues.Issue` per broken rule
    (``path_contains_nul``, ``path_foreign_flavor``, ``path_dual_flavor``,
    ``path_not_absolute``, ``path_contains_tilde``, ``path_dot_or_empty_segment``).
    """
    return [Issue(code, where, message) for code in _path_text_codes(text)]


def _path_text_codes(text: str) -> list[str]:
    codes: list[str] = []
    if "\x00" in text:
        codes.append("path_contains_nul")
    if "\\" in text or _DRIVE.match(text):
        codes.append("path_foreign_flavor")
    if text.startswith("//"):
        codes.append("path_dual_flavor")
    if not text.startswith("/"):
        codes.append("path_not_absolute")
    if "~" in text:
        codes.append("path_contains_tilde")
    components = text.split("/")[1:]
    if any(part in ("", ".", "..") for part in components) and not text.startswith("//"):
        codes.append("path_dot_or_empty_segment")
    return codes


def require_utf8(path: Path) -> None:
    """Refuse a path that is not valid UTF-8: a UTF-8 JSON document cannot record it."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise VideoExtractionError("path_not_utf8", "the path is not valid UTF-8", shown) from None


def resolve_vault_root(root: Path) -> Path:
    """The storage root: the configured root with its own symlink resolved."""
    if not root.is_dir():
        raise VideoExtractionError(
            "vault_root_missing", "the vault root is not a directory", str(root)
        )
    return Path(os.path.realpath(root))


def _relative_below(candidate: Path, configured: Path, storage: Path) -> tuple[str, ...] | None:
    # abspath is lexical: symlinks are checked component by component below.
    absolute = Path(os.path.abspath(candidate))  # noqa: PTH100
    if any(part in (".", "..") for part in Path(candidate).parts):
        return None
    for base in (Path(os.path.abspath(configured)), storage):  # noqa: PTH100
        try:
            return absolute.relative_to(base).parts
        except ValueError:
            continue
    return None


def locate_in_vault(
    candidate: Path, configured_root: Path, storage_root: Path, *, must_exist: bool
) -> Path:
    """Map ``candidate`` onto the storage root, refusing escapes and symlinks.

    Returns the native absolute path below ``storage_root``. Components that
    exist are checked with ``lstat``: any symlink below the root is refused
    (``symlink_refused``); a path outside the root is ``outside_vault_root``.
    """
    parts = _relative_below(candidate, configured_root, storage_root)
    if parts is None:
        raise VideoExtractionError(
            "outside_vault_root",
            f"the path is not inside the vault root {configured_root}",
            str(candidate),
            hint="copy or move the recording into the vault (e.g. VAULT/media/, then "
            "rvault-db attach-media), or pass --vault-root for the vault that holds it",
        )
    current = storage_root
    for part in parts:
        current = current / part
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            if must_exist:
                raise VideoExtractionError(
                    "path_not_found", "the path does not exist", str(current)
                ) from None
            break
        if stat.S_ISLNK(info.st_mode):
            raise VideoExtractionError(
                "symlink_refused",
                "a symlink below the vault root is refused: manifests name the very files read",
                str(current),
                hint="pass the file the link points to (inside the vault), or replace the link "
                "with the file itself",
            )
    return storage_root.joinpath(*parts)


DESCENDANT_RULE = "manifest paths name non-symlink regular files inside the vault storage root"


def descendant_issues(
    text: str, storage_root: Path, where: str = "$", message: str = DESCENDANT_RULE
) -> list[Issue]:
    """Filesystem problems of a manifest path at JSON path ``where`` (empty when clean).

    At most one coded :class:`~rvault_contracts.issues.Issue`, for the first
    problem met walking down from ``storage_root``: ``path_outside_vault_root``,
    ``path_missing``, ``path_unreadable``, ``path_symlink`` or
    ``path_not_regular_file``.
    """
    code = _descendant_code(text, storage_root)
    return [] if code is None else [Issue(code, where, message)]


def _descendant_code(text: str, storage_root: Path) -> str | None:
    if "\x00" in text:
        return None  # ``path_text_issues`` reports it; the OS cannot even be asked about it
    path = Path(text)
    try:
        parts = path.relative_to(storage_root).parts
    except ValueError:
        return "path_outside_vault_root"
    if not parts:
        return "path_outside_vault_root"
    current = storage_root
    for index, part in enumerate(parts):
        current = current / part
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            return "path_missing"
        except OSError:
            return "path_unreadable"
        if stat.S_ISLNK(info.st_mode):
            return "path_symlink"
        if index == len(parts) - 1 and not stat.S_ISREG(info.st_mode):
            return "path_not_regular_file"
    return None


def make_directories(directory: Path, code: str, what: str) -> list[Path]:
    """Create ``directory`` and missing parents; return those created, deepest first.

    A refused or failed run removes exactly these again with
    :func:`remove_created`, so a refusal leaves no new directory behind.
    Failure to create raises ``VideoExtractionError(code)``.
    """
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current):
        missing.append(current)
        current = current.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        remove_created(missing)
        raise VideoExtractionError(
            code, f"cannot create {what}: {exc.strerror}", str(directory)
        ) from None
    return missing


def remove_created(created: list[Path]) -> None:
    """Remove directories this run created (deepest first) while they are empty."""
    for directory in created:
        try:
            directory.rmdir()
        except OSError:
            return
