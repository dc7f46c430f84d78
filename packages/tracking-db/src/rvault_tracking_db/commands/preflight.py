"""``rvault-db preflight VAULT_OR_DB``: the read-only, offline integrity gate.

Prints the ``db-preflight-report`` v1. Exit 0: no blocking finding (warnings
may be listed). Exit 3: at least one blocking finding; the report on stdout
says which. Exit 2 stays what it is for every command, a refused command line,
so a script can tell "the vault needs repair" from "the call was wrong"; an
unreadable database is itself a blocking finding (exit 3), never a refusal.
"""

from __future__ import annotations

import argparse
from typing import Any

EXIT_BLOCKING = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "preflight",
        help="offline integrity gate: source identities, duplicates, artifacts, deck bindings",
        description=(
            "Reads the vault (its root or tracking-database.json) without writing or fetching "
            "anything and reports blocking findings and warnings, each with a code, the talk "
            "and the JSON path. Exit 0 without blocking findings, 3 with any."
        ),
    )
    parser.add_argument("target", metavar="VAULT_OR_DB", help="the vault root or its database")
    parser.add_argument(
        "--capture",
        metavar="FILE",
        help="also compare a capture-identity file's provider facts with the talks it names",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_contracts import cli as contract_cli

    from rvault_tracking_db.preflight.run import PreflightRequest, run_preflight

    report = run_preflight(PreflightRequest(args.target, args.capture))
    contract_cli.emit(report)
    return contract_cli.finish(contract_cli.EXIT_OK if report["ok"] else EXIT_BLOCKING)
