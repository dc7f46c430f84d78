"""``rvault-batch plan VAULT``: the acquisition tasks the vault needs (read-only)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "plan",
        help="list the acquisition tasks from rvault-db status (read-only)",
        description=(
            "List, from rvault-db status, the transcript, deck and slide tasks of the talks "
            "that need them; talks whose artifacts are current are skipped. Writes nothing."
        ),
    )
    parser.add_argument("vault", type=Path, metavar="VAULT", help="vault root or its database")
    add_max_talks(parser)
    parser.set_defaults(handler=run)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_max_talks(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-talks",
        type=positive,
        metavar="N",
        help="plan only the first N talks that need work (the rest: the next batch)",
    )


def run(args: argparse.Namespace) -> int:
    from rvault_archive_batch.planning import build_plan

    contract_cli.emit(build_plan(args.vault, args.max_talks).to_dict())
    return contract_cli.EXIT_OK
