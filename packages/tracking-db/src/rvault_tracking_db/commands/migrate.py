"""``rvault-db migrate DB [--apply --expected-sha256 HEX]``."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts import cli as contract_cli

from rvault_tracking_db import apply_protocol


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="owner preservation migration to database schema 1 / config schema 2",
        description=(
            "Dry-run by default: prints the changes and the exact input_sha256. --apply "
            "requires that digest, refuses active queue claims, version-0 sentinels, future "
            "versions and ambiguous records before any write, keeps the original bytes under "
            "{vault_root}/.backups/ and installs through the writer protocol."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_tracking_db.migration import run_migration  # on use: keeps startup light

    contract_cli.emit(run_migration(args.database, apply=args.apply, expected=args.expected_sha256))
    return contract_cli.finish(contract_cli.EXIT_OK)
