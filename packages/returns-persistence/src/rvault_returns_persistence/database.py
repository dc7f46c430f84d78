"""Reading the tracking database and the talk's active queue claim.

The database has one owner, tracking-db: it is read only through the owner
read of its public api (``rvault_tracking_db.api.read_database``: no-follow
snapshot, strict decoding, the full schema assessment), never decoded here.
The owner's refusals are mapped onto this package's stable ``database_*``
codes. The claim is checked against the registered ``queue-claim`` schema
when the tracking-db owner has published it, and against the compatibility
rules of the specification in any case. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts import schemas
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import ERROR_CODES as STRICT_JSON_CODES
from rvault_contracts.strict_json import is_integer
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.refusals import HintedRefusal

CLAIM_ARTIFACT = "queue-claim"

# Owner refusal code -> this package's refusal code (strict-JSON codes become
# ``database_<code>``; any other owner refusal is ``database_invalid``).
_UNREADABLE = frozenset({"database_missing", "io_error", "path_not_utf8"})
_NOT_REGULAR = frozenset({"symlink_refused", "not_regular_file"})
_ROOT_VERSION_PATH = '$["schema_version"]'
_ROOT_VERSION_CODES = frozenset(
    {"unsupported_schema_version", "invalid_schema_version", "version_zero_sentinel"}
)


class DatabaseError(HintedRefusal):
    """The database cannot be used (a ``cli-failure`` refusal the commands let reach the CLI)."""

    HINT = "run `rvault-db read DB` to see the tracking-db owner's findings, fix them, retry"


@dataclass(frozen=True)
class Database:
    path: Path
    root: dict[str, Any]
    talks: dict[str, dict[str, Any]]

    def talk(self, filename: object) -> dict[str, Any] | None:
        return self.talks.get(filename) if isinstance(filename, str) else None

    def pptx_record(self, pptx_path: object) -> dict[str, Any] | None:
        """The pptx_catalog record of a deck path (owner: tracking-db), else ``None``."""
        if not isinstance(pptx_path, str):
            return None
        records = self.root.get("pptx_catalog")
        if not isinstance(records, list):
            return None
        for record in records:
            if isinstance(record, dict) and record.get("pptx_path") == pptx_path:
                return record
        return None

    def talk_deck(self, talk: dict[str, Any]) -> dict[str, Any] | None:
        """The talk's recorded deck: its pptx_path record, else the matched record naming it."""
        record = self.pptx_record(talk.get("pptx_path"))
        if record is not None:
            return record
        records = self.root.get("pptx_catalog")
        for candidate in records if isinstance(records, list) else ():
            if (
                isinstance(candidate, dict)
                and candidate.get("matched") is True
                and candidate.get("talk_filename") == talk.get("filename")
            ):
                return candidate
        return None

    def deck_slides(self, talk: dict[str, Any]) -> int | None:
        """The recorded deck's slide count (owner: tracking-db's pptx_catalog)."""
        record = self.talk_deck(talk)
        count = record.get("slide_count") if record is not None else None
        return count if is_integer(count) and count > 0 else None

    def pptx_slide_count(self, pptx_path: object) -> int | None:
        """Deck slide count from the database's pptx_catalog (owner: tracking-db)."""
        record = self.pptx_record(pptx_path)
        count = record.get("slide_count") if record is not None else None
        return count if is_integer(count) and count > 0 else None


def database_error(refusal: Refusal, path: Path) -> DatabaseError:
    """This package's refusal for an owner refusal of the database at ``path``."""
    code = refusal.code
    owner = {"code": code, "message": refusal.message, "path": refusal.path}
    hint = DatabaseError.HINT
    if code in _UNREADABLE:
        mapped, message = "database_unreadable", f"cannot read the database: {refusal.message}"
        hint = "pass the path of tracking-database.json (it must exist and be readable)"
    elif code in _NOT_REGULAR:
        mapped, message = "database_not_regular_file", "the database must be a regular file"
        hint = "pass the database file itself, not a symlink or a directory"
    elif code in STRICT_JSON_CODES:
        mapped, message = f"database_{code}", refusal.message
        hint = "the database is not strict JSON; restore it from the last backup"
    elif code in _ROOT_VERSION_CODES and refusal.path == _ROOT_VERSION_PATH:
        mapped, message = "database_version_unsupported", f"{refusal.message}: no usable state"
        hint = "run `rvault-db migrate` (dry run, then --apply) to bring the database current"
    else:
        mapped = "database_invalid"
        message = f"tracking-db refused the database: {code} at {refusal.path}: {refusal.message}"
    return DatabaseError(mapped, message, str(path), owner_error=owner, hint=hint)


def load_database(path: Path) -> Database:
    """The database through the tracking-db owner read, or :class:`DatabaseError`.

    The owner read refuses symlinks, non-files, undecodable bytes, an
    unsupported root version and every fatal schema issue (duplicate talk
    filenames, talks that are not objects with a filename, ...), so every
    talk read here is an object with a unique filename.
    """
    try:
        result = tracking.read_database(path)
    except tracking.DatabaseRefusal as refusal:
        raise database_error(refusal, path) from None
    return from_read(result, path)


def from_read(result: tracking.ReadResult, path: Path) -> Database:
    """The :class:`Database` view of an owner read (persist reads under the writer lock)."""
    root = result.database
    assert root is not None  # only a read with allow_missing=True returns no value
    talks_raw = root.get("talks")
    if not isinstance(talks_raw, list):  # the unversioned corpus may omit talks
        raise DatabaseError("database_invalid", "the database has no talks array", str(path))
    talks = {talk["filename"]: talk for talk in talks_raw}
    return Database(path=path, root=root, talks=talks)


def claim_registered(version: int) -> bool:
    entry = schemas.registry().get(CLAIM_ARTIFACT)
    return entry is not None and version in entry.versions


def claim_schema_problems(claim: dict[str, Any], version: int) -> list[str]:
    """Contract violations of the stored claim (empty when its schema is not registered yet)."""
    if not claim_registered(version):
        return []
    return [f"{i.path}: {i.message}" for i in schemas.schema_issues(CLAIM_ARTIFACT, version, claim)]


@dataclass(frozen=True)
class Snapshot:
    """What persist read in its session: the owner read, its :class:`Database`, the vault."""

    read: Any  # the tracking-db ReadResult (its bytes bind the install)
    db: Database
    vault_root: Path

    @property
    def talks(self) -> list[Any]:
        """The database's talks in stored order (a member's index is its position here)."""
        return self.read.database["talks"]

    @property
    def pptx_root(self) -> Path | None:
        """The configured pptx_source_dir (None: decks live in the vault)."""
        config = self.db.root.get("config")
        return tracking.SourceRoots.from_config(self.vault_root, config).pptx_source_dir


def read_for_persist(read: Any, path: Path, vault_root: Path | None) -> Snapshot:
    """Step 1 of persist: the session's owner read of a current database, and the vault.

    ``read`` is what the apply session read (under the writer lock when
    applying); persist writes only a schema-1 database, into a vault that is
    a directory (by default the database's).
    """
    if read.assessment is None or read.assessment.root_version != 1:
        raise Refusal(
            "database_requires_migration",
            "persist writes only a current (schema 1) tracking database",
            _ROOT_VERSION_PATH,
            hint="run `rvault-db migrate DB` (dry run, then --apply) first",
        )
    return Snapshot(read, from_read(read, path), vault_directory(path, vault_root))


def vault_directory(database_path: Path, vault_root: Path | None) -> Path:
    """The vault a database's artifacts live in: ``--vault-root``, else the database's directory."""
    root = vault_root if vault_root is not None else database_path.parent
    if not root.is_dir():
        raise Refusal(
            "vault_root_invalid",
            "the vault root is not a directory",
            str(root),
            hint="pass --vault-root DIR (the directory holding transcripts/ and slides/)",
        )
    return root
