"""``rvault-db read DB``: the strict owner read (report schema v1)."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts import cli as contract_cli

from rvault_tracking_db.reader import read_database


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


def handle(args: argparse.Namespace) -> int:
    result = read_database(args.database)
    contract_cli.emit(result.report())
    return contract_cli.EXIT_OK
