"""``rvault-db read DB``: the strict owner read (report schema v1)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rvault_contracts import cli as contract_cli
from rvault_contracts.canonical import artifact_bytes

from rvault_tracking_db.reader import ReadResult, read_database

_JSON_WHITESPACE = b" \t\n\r"


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


def report_bytes(result: ReadResult) -> bytes:
    """The read report with the verified database bytes embedded verbatim.

    The bytes were strictly decoded and assessed, so their text *is* the
    reported value; re-encoding a large vault would cost more than the read
    itself. Nested lines gain two spaces of indentation (raw newlines cannot
    occur inside JSON strings), so for a database stored in the canonical
    artifact encoding, as every toolkit writer stores it, the output is
    byte-identical to ``emit(result.report())``.
    """
    assert result.snapshot.data is not None
    report = result.report()
    del report["database"]
    rest = artifact_bytes(report)  # b'{\n  "database_path": ...}\n'; "database" sorts first
    body = result.snapshot.data.strip(_JSON_WHITESPACE).replace(b"\n", b"\n  ")
    return b'{\n  "database": ' + body + b",\n" + rest[2:]


def handle(args: argparse.Namespace) -> int:
    result = read_database(args.database)
    out = sys.stdout
    out.flush()
    out.buffer.write(report_bytes(result))
    out.buffer.flush()
    return contract_cli.EXIT_OK
