"""``rvault-db mutate DB PLAN [--apply --expected-sha256 HEX|missing]``."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts import cli as contract_cli

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.plan_input import read_plan_bytes


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mutate",
        help="apply a typed, hash-bound mutation plan (dry-run by default)",
        description=(
            "Decodes a mutation plan (schema v1) strictly and applies it as one transaction. "
            "Without --apply it prints the changes and the exact input_sha256; --apply "
            "requires --expected-sha256 with that digest (the literal 'missing' for "
            "initialize_database)."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.add_argument("plan", help="path of the plan JSON file, or - for stdin")
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_tracking_db.mutations import decode_plan, run_mutation  # on use

    plan = decode_plan(read_plan_bytes(args.plan))
    report = run_mutation(args.database, plan, apply=args.apply, expected=args.expected_sha256)
    contract_cli.emit(report)
    return contract_cli.finish(contract_cli.EXIT_OK)
