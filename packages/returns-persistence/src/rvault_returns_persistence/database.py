"""Reading the tracking database and the talk's active queue claim.

The database is decoded strictly (``rvault_contracts.strict_json``); the
claim is checked against the registered ``queue-claim`` schema when the
tracking-db owner has published it, and against the compatibility rules of
the specification in any case. Nothing here writes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts import schemas
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, is_integer, loads_strict

CLAIM_ARTIFACT = "queue-claim"
SUPPORTED_DATABASE_VERSIONS = (0, 1)  # 0: the implicit unversioned corpus


class DatabaseError(Refusal):
    """The database cannot be used (a ``cli-failure`` refusal the commands let reach the CLI)."""


@dataclass(frozen=True)
class Database:
    path: Path
    root: dict[str, Any]
    talks: dict[str, dict[str, Any]]
    duplicate_filenames: frozenset[str]

    def talk(self, filename: object) -> dict[str, Any] | None:
        return self.talks.get(filename) if isinstance(filename, str) else None

    def pptx_slide_count(self, pptx_path: object) -> int | None:
        """Deck slide count from the database's pptx_catalog (owner: tracking-db)."""
        if not isinstance(pptx_path, str):
            return None
        records = self.root.get("pptx_catalog")
        if not isinstance(records, list):
            return None
        for record in records:
            if isinstance(record, dict) and record.get("pptx_path") == pptx_path:
                count = record.get("slide_count")
                if is_integer(count) and count > 0:
                    return count
        return None


def load_database(path: Path) -> Database:
    """Strictly decode ``tracking-database.json``; refuse symlinks and non-files."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise DatabaseError(
            "database_unreadable", f"cannot read the database: {exc.strerror}", str(path)
        ) from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise DatabaseError(
            "database_not_regular_file", "the database must be a regular file", str(path)
        )
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        root = loads_strict(data)
    except StrictJSONError as exc:
        raise DatabaseError(f"database_{exc.code}", exc.message, str(path)) from None
    version = root.get("schema_version", 0)
    if version not in SUPPORTED_DATABASE_VERSIONS or isinstance(version, bool):
        raise DatabaseError(
            "database_version_unsupported",
            f"database schema_version {version!r} is not 0 or 1: no usable state",
            str(path),
        )
    talks_raw = root.get("talks")
    if not isinstance(talks_raw, list):
        raise DatabaseError("database_invalid", "the database has no talks array", str(path))
    talks: dict[str, dict[str, Any]] = {}
    duplicates: set[str] = set()
    for talk in talks_raw:
        if isinstance(talk, dict) and isinstance(talk.get("filename"), str):
            name = talk["filename"]
            if name in talks:
                duplicates.add(name)
            talks[name] = talk
    return Database(path=path, root=root, talks=talks, duplicate_filenames=frozenset(duplicates))


def claim_registered(version: int) -> bool:
    entry = schemas.registry().get(CLAIM_ARTIFACT)
    return entry is not None and version in entry.versions


def claim_schema_problems(claim: dict[str, Any], version: int) -> list[str]:
    """Contract violations of the stored claim (empty when its schema is not registered yet)."""
    if not claim_registered(version):
        return []
    return [f"{i.path}: {i.message}" for i in schemas.schema_issues(CLAIM_ARTIFACT, version, claim)]
