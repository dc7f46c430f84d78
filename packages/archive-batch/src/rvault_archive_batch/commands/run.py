"""``rvault-batch run VAULT [--scheduler ADDRESS [--connect-timeout S]] [--workers N]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_archive_batch.commands.plan import add_max_talks, positive

DEFAULT_RETRIES = 2


def _count(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError("must be 0..10")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "run",
        help="run the planned tasks on Dask and register them in one transaction",
        description=(
            "Run the planned tasks on Dask distributed (an embedded local cluster of "
            "processes, or --scheduler ADDRESS), each through its owner's tool, then register "
            "every result as one source-plan transaction through rvault-db. Progress on "
            "stderr; the report on stdout."
        ),
    )
    parser.add_argument("vault", type=Path, metavar="VAULT", help="vault root or its database")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler")
    parser.add_argument(
        "--workers", type=positive, default=2, help="local worker processes (default 2)"
    )
    parser.add_argument(
        "--retries",
        type=_count,
        default=DEFAULT_RETRIES,
        help=f"retries of a transient failure or lost worker per task (default {DEFAULT_RETRIES})",
    )
    parser.add_argument(
        "--connect-timeout",
        type=positive,
        default=10,
        metavar="SECONDS",
        help="how long to try reaching --scheduler before refusing (default 10)",
    )
    add_max_talks(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rvault_archive_batch.batch import RunRequest, run_batch

    request = RunRequest(
        args.vault,
        args.scheduler,
        args.workers,
        args.retries,
        args.max_talks,
        connect_timeout=args.connect_timeout,
    )
    contract_cli.emit(run_batch(request))
    return contract_cli.EXIT_OK
