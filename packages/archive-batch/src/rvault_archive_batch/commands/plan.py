"""``rvault-batch plan VAULT``: the acquisition tasks the vault needs (read-only)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from rvault_contracts import cli as contract_cli


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "plan",
        help="list the acquisition tasks from rvault-db status (read-only)",
        description=(
            "List, from rvault-db status, the transcript, deck and slide tasks of the talks "
            "that need them; talks whose artifacts are current are skipped. Writes nothing; "
            "next_command is the rvault-batch run that carries the plan out."
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

    document = build_plan(args.vault, args.max_talks).to_dict()
    document["next_command"] = run_command(args) if document["tasks"] else None
    contract_cli.emit(document)
    return contract_cli.EXIT_OK


def run_command(args: argparse.Namespace) -> str:
    """The command that carries out this plan (``run`` plans again from the same vault)."""
    limit = [] if args.max_talks is None else ["--max-talks", str(args.max_talks)]
    return shlex.join(["rvault-batch", "run", str(args.vault), *limit])
