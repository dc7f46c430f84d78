"""``rvault-db mutate DB PLAN [--apply --expected-sha256 HEX|missing]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rvault_contracts import cli as contract_cli
from rvault_contracts.cli import Refusal

from rvault_tracking_db import apply_protocol


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


# A plan is a few records; the cap keeps `mutate DB /dev/zero` (or an endless
# pipe) from reading until memory runs out.
MAX_PLAN_BYTES = 64 * 1024 * 1024


def read_plan_bytes(source: str) -> bytes:
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_PLAN_BYTES + 1)
        else:
            with Path(source).open("rb") as handle:
                data = handle.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise Refusal(
            "plan_unreadable", f"cannot read the plan: {exc.strerror or exc}", None
        ) from None
    if len(data) > MAX_PLAN_BYTES:
        raise Refusal("plan_too_large", f"the plan is larger than {MAX_PLAN_BYTES} bytes", "$")
    return data


def handle(args: argparse.Namespace) -> int:
    from rvault_tracking_db.mutations import decode_plan, run_mutation  # on use

    plan = decode_plan(read_plan_bytes(args.plan))
    report = run_mutation(args.database, plan, apply=args.apply, expected=args.expected_sha256)
    contract_cli.emit(report)
    return contract_cli.finish(contract_cli.EXIT_OK)
