"""``rvault-db read DB``: the strict owner read (report schema v1)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from rvault_contracts import cli as contract_cli
from rvault_contracts.canonical import artifact_bytes

from rvault_tracking_db.reader import ReadResult, VerifiedRead, report_fields
from rvault_tracking_db.verified_read import verify_database

_JSON_WHITESPACE = frozenset(b" \t\n\r")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "read",
        help="strictly read and assess the tracking database",
        description=(
            "Accepts only a no-follow regular file, decodes it strictly and assesses every "
            "schema generation first. Prints report schema v1 with database_path, the exact "
            "byte sha256 and database; exit 2 with ok: false and no database otherwise."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.set_defaults(handler=handle)


def report_chunks(result: ReadResult | VerifiedRead) -> Iterator[bytes | memoryview]:
    """The read report, with the verified database bytes embedded verbatim."""
    assert result.snapshot.data is not None
    return database_chunks(result.snapshot.data, report_tail(result))


def report_tail(result: ReadResult | VerifiedRead) -> bytes:
    """Every report member but ``database``, encoded: ``b'{\\n  "database_path": ...}\\n'``."""
    return artifact_bytes(report_fields(result))


# The indented copy is made a slice at a time, so the reply never holds a
# second copy of a large database next to its bytes.
_CHUNK = 1 << 20


def database_chunks(data: bytes, rest: bytes) -> Iterator[bytes | memoryview]:
    """The report: ``data`` embedded as its ``database`` member before ``rest``'s members.

    The bytes were strictly decoded and assessed, so their text *is* the
    reported value; re-encoding a large vault would cost more than the read
    itself. Nested lines gain two spaces of indentation (raw newlines cannot
    occur inside JSON strings), so for a database stored in the canonical
    artifact encoding, as every toolkit writer stores it, the joined chunks
    are byte-identical to ``emit(result.report())``.
    """
    start, end = _value_bounds(data)  # "database" sorts first, before rest's members
    yield b'{\n  "database": '
    view = memoryview(data)
    for offset in range(start, end, _CHUNK):
        yield view[offset : min(offset + _CHUNK, end)].tobytes().replace(b"\n", b"\n  ")
    yield b",\n"
    yield rest[2:]


def _value_bounds(data: bytes) -> tuple[int, int]:
    """Where the JSON value starts and ends, without copying the file to strip it."""
    start, end = 0, len(data)
    while start < end and data[start] in _JSON_WHITESPACE:
        start += 1
    while end > start and data[end - 1] in _JSON_WHITESPACE:
        end -= 1
    return start, end


def handle(args: argparse.Namespace) -> int:
    # The reply carries the verified bytes, not the decoded tree (2-3x the
    # file), so the read keeps no tree and the reply is written a slice at a
    # time (verified_read, database_chunks).
    result = verify_database(args.database)
    out = sys.stdout
    out.flush()
    out.buffer.writelines(report_chunks(result))
    out.buffer.flush()
    return contract_cli.finish(contract_cli.EXIT_OK)
