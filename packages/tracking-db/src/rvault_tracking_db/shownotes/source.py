"""Where the shownotes live: ``config.shownotes.source`` or legacy ``talks_source_dir``.

The talks directory is resolved inside the configured root: the root is a
native absolute path (it may itself be a symlink, as the vault root may),
``talks_subdir`` is a relative path whose components must be real
directories, never links. Remote, ``none`` and disabled sources are a
structured no-op: no Markdown is read and nothing is written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.capabilities import relative_path_issue

LOCAL_TYPES = ("local_jekyll", "local_hugo", "local_eleventy", "local_astro")
NONLOCAL_TYPES = ("remote_url", "none")
DEFAULT_SUBDIRS = {
    "local_jekyll": "_talks",
    "local_hugo": "content/talks",
    "local_eleventy": "talks",
    "local_astro": "src/content/talks",
}


@dataclass(frozen=True)
class ShownotesSource:
    operation: str  # "scan" | "skipped_disabled" | "skipped_nonlocal"
    enabled: bool
    source_type: str | None
    config_origin: str | None  # "shownotes" | "talks_source_dir" | None
    root: str | None
    talks_subdir: str | None
    talks_directory: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "source_type": self.source_type,
            "config_origin": self.config_origin,
            "root": self.root,
            "talks_subdir": self.talks_subdir,
            "talks_directory": self.talks_directory,
        }


def _absolute(value: object, where: str) -> str:
    if (
        not isinstance(value, str)
        or not value
        or "\x00" in value  # no file system path holds a NUL byte
        or not Path(value).is_absolute()
    ):
        raise Refusal(
            "shownotes_root_invalid", "the shownotes root must be a native absolute path", where
        )
    # Lexically, on the string: ``Path(value).parts`` silently drops ``.``.
    segments = value.replace(os.sep, "/").split("/")
    if any(segment in {".", ".."} for segment in segments):
        raise Refusal("shownotes_root_invalid", "the shownotes root has dot segments", where)
    return value


def _require_directory(path: str, where: str) -> None:
    try:
        st = Path(path).stat()
    except OSError:
        raise Refusal("shownotes_directory_missing", f"{path} does not exist", where) from None
    if not stat.S_ISDIR(st.st_mode):
        raise Refusal("shownotes_directory_missing", f"{path} is not a directory", where)


def _walk_subdir(root: str, subdir: str, where: str) -> str:
    """Join ``subdir`` below ``root`` refusing links and escapes component by component."""
    code = relative_path_issue(subdir)
    if code is not None:
        raise Refusal("shownotes_subdir_invalid", f"talks_subdir {subdir!r}: {code}", where)
    current = root
    for part in subdir.split("/"):
        current = str(Path(current) / part)
        try:
            st = os.lstat(current)
        except OSError:
            raise Refusal(
                "shownotes_directory_missing", f"{current} does not exist", where
            ) from None
        if stat.S_ISLNK(st.st_mode):
            raise Refusal("symlink_refused", f"{current} is a symbolic link", where)
        if not stat.S_ISDIR(st.st_mode):
            raise Refusal("shownotes_directory_missing", f"{current} is not a directory", where)
    return current


def resolve_source(config: Mapping[str, Any] | None) -> ShownotesSource:
    config = config if isinstance(config, Mapping) else {}
    shownotes = config.get("shownotes")
    if isinstance(shownotes, Mapping):
        where = '$["config"]["shownotes"]'
        if shownotes.get("enabled") is False:
            return ShownotesSource(
                "skipped_disabled", False, _type_of(shownotes), "shownotes", None, None, None
            )
        source = shownotes.get("source")
        source_type = _type_of(shownotes)
        if source_type is None or source_type in NONLOCAL_TYPES:
            return ShownotesSource(
                "skipped_nonlocal", True, source_type or "none", "shownotes", None, None, None
            )
        if source_type not in LOCAL_TYPES:
            raise Refusal("shownotes_source_invalid", f"unknown source type {source_type!r}", where)
        assert isinstance(source, Mapping)
        root = _absolute(source.get("path_or_url"), f'{where}["source"]["path_or_url"]')
        _require_directory(root, f'{where}["source"]["path_or_url"]')
        subdir = source.get("talks_subdir") or DEFAULT_SUBDIRS[source_type]
        directory = _walk_subdir(root, subdir, f'{where}["source"]["talks_subdir"]')
        return ShownotesSource("scan", True, source_type, "shownotes", root, subdir, directory)
    legacy = config.get("talks_source_dir")
    if legacy is None:
        return ShownotesSource("skipped_disabled", False, None, None, None, None, None)
    where = '$["config"]["talks_source_dir"]'
    directory = _absolute(legacy, where)
    _require_directory(directory, where)
    if Path(directory).is_symlink():
        raise Refusal("symlink_refused", f"{directory} is a symbolic link", where)
    root = str(Path(directory).parent)
    subdir = Path(directory).name
    return ShownotesSource(
        "scan", True, "local_jekyll", "talks_source_dir", root, subdir, directory
    )


def _type_of(shownotes: Mapping[str, Any]) -> str | None:
    source = shownotes.get("source")
    if isinstance(source, Mapping) and isinstance(source.get("type"), str):
        return source["type"]
    return None
