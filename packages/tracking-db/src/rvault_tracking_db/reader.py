"""The strict owner read of ``tracking-database.json``.

Every command of this package, and the queue and shownotes code, reads the
database only through :func:`read_database`: a no-follow read of a regular
file (the writer protocol's snapshot, so a later install is bound to exactly
these bytes and this file generation), strict decoding, then the owner
schema assessment as the first semantic operation. A refused read returns no
database value at all.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal, printable
from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import StrictJSONError
from rvault_contracts.writer import Snapshot, WriterError, read_snapshot

from rvault_tracking_db.assessment import Assessment, assess_database
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.decoding import decode_database

READ_REPORT_VERSION = 1
MAX_REPORTED_ISSUES = 50
DATABASE_MISSING = "database_missing"


class DatabaseRefusal(Refusal):
    """A database that cannot be used as prior state; carries every fatal issue."""


@dataclass(frozen=True)
class ReadResult:
    """What the owner read saw: the snapshot, its decoded value and assessment.

    ``database`` is ``None`` only for a missing file read with
    ``allow_missing=True`` (initialization), or a read that planned its
    command while streaming the talks and kept no tree (``queue normalize``:
    :mod:`rvault_tracking_db.queue.streamed_normalize`).
    """

    path: Path
    database_path: str
    snapshot: Snapshot
    database: dict[str, Any] | None
    assessment: Assessment | None

    @property
    def sha256(self) -> str | None:
        """SHA-256 of the exact bytes read (``None`` when the file is missing)."""
        return self.snapshot.sha256

    @property
    def exists(self) -> bool:
        return self.snapshot.data is not None

    def report(self) -> dict[str, Any]:
        """The read report v1 (only for an existing, usable database)."""
        assert self.database is not None and self.assessment is not None
        return {"database": self.database, **report_fields(self)}


def report_fields(read: ReadResult | VerifiedRead) -> dict[str, Any]:
    """Every member of the read report v1 but ``database``."""
    assert read.assessment is not None
    return {
        "database_path": read.database_path,
        "ok": True,
        "root_schema_version": read.assessment.root_version,
        "schema_version": READ_REPORT_VERSION,
        "sha256": read.snapshot.sha256,
        "warnings": [issue.to_dict() for issue in read.assessment.warnings],
    }


@dataclass(frozen=True)
class VerifiedRead:
    """A database read, decoded and assessed without keeping its decoded value.

    What ``rvault-db read`` needs: its reply carries the verified bytes, not
    the tree (:mod:`rvault_tracking_db.verified_read`).
    """

    database_path: str
    snapshot: Snapshot
    assessment: Assessment


def issue_refusal(issues: Iterable[Issue]) -> DatabaseRefusal:
    listed = list(issues)
    first = listed[0]
    return DatabaseRefusal(
        first.code,
        first.message,
        first.path,
        issues=[issue.to_dict() for issue in listed[:MAX_REPORTED_ISSUES]],
    )


def read_database(
    path: str | os.PathLike[str],
    *,
    allow_missing: bool = False,
    tolerate: Callable[[Issue], bool] | None = None,
) -> ReadResult:
    """Read, decode and assess the database, or raise :class:`DatabaseRefusal`.

    ``tolerate`` accepts input issues a caller is about to repair in place
    (``set_config`` over an invalid ``vault_storage_path`` or a literally
    persisted missing marker); such a caller must assess its whole candidate
    before writing.
    """
    target, database_path, snapshot = open_snapshot(path)
    if snapshot.data is None:
        if not allow_missing:
            raise missing_refusal(database_path)
        return ReadResult(target, database_path, snapshot, None, None)
    with hashing(snapshot):
        document, assessment = decode_and_assess(snapshot.data, database_path, tolerate)
    return ReadResult(target, database_path, snapshot, document, assessment)


def open_snapshot(path: str | os.PathLike[str]) -> tuple[Path, str, Snapshot]:
    """The no-follow snapshot of ``path`` and its lexical absolute path (UTF-8)."""
    target = Path(path)
    database_path = os.path.abspath(os.fspath(target))  # noqa: PTH100 - lexical, no resolve
    try:
        database_path.encode("utf-8")
    except UnicodeEncodeError:
        # Reports carry database_path as UTF-8 JSON; a name with undecodable
        # bytes could never be reported (it used to end in an internal error).
        raise DatabaseRefusal(
            "path_not_utf8",
            f"the database path is not valid UTF-8: {printable(database_path)}",
            "$",
        ) from None
    try:
        return target, database_path, read_snapshot(target)
    except WriterError as exc:
        raise DatabaseRefusal(exc.code, str(exc), "$") from None


def missing_refusal(database_path: str) -> DatabaseRefusal:
    return DatabaseRefusal(
        DATABASE_MISSING,
        f"{database_path} does not exist",
        "$",
        hint="create a vault with `rvault-db init VAULT_ROOT`, or check the path",
    )


@contextmanager
def hashing(snapshot: Snapshot) -> Iterator[None]:
    """Digest the snapshot on another thread while the body decodes.

    hashlib releases the GIL on large buffers, so the digest of a big
    database costs nothing next to decoding it on the other core.
    """
    hasher = threading.Thread(target=lambda: snapshot.sha256, daemon=True)  # cached there
    hasher.start()
    try:
        yield
    finally:
        hasher.join()


def decode_and_assess(
    data: bytes, database_path: str, tolerate: Callable[[Issue], bool] | None = None
) -> tuple[dict[str, Any], Assessment]:
    """The strict value of ``data`` and its assessment, or :class:`DatabaseRefusal`."""
    try:
        document = decode_database(data)
    except StrictJSONError as exc:
        raise DatabaseRefusal(exc.code, exc.message, exc.path) from None
    assessment = assess_database(document, database_parent=database_parent(database_path))
    refuse_fatal(assessment, tolerate)
    return document, assessment


def refuse_fatal(assessment: Assessment, tolerate: Callable[[Issue], bool] | None = None) -> None:
    """Raise the refusal of the assessment's fatal issues that are not tolerated."""
    blocking = [i for i in assessment.fatal if tolerate is None or not tolerate(i)]
    if blocking:
        raise issue_refusal(blocking)
