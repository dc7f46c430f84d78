"""``rvault-returns persist DB RETURNS.json --run-date ISO [--apply --expected-sha256 HEX]``.

A thin CLI over :func:`rvault_returns_persistence.persist.persist`: it reads
the returns file (strict JSON, bounded), builds the request and prints the
``returns-persistence-report`` v2. A dry run by default (``next_command`` is
the exact apply command); ``--apply --expected-sha256 HEX`` writes, with the
same arguments and refusal codes as every ``rvault-db`` writer. Every refusal
is a ``cli-failure`` with a ``hint`` (exit 2) and leaves the database's bytes
and inode unchanged.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts.cli import EXIT_OK, emit, progress
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.commands.common import add_catalog_argument
from rvault_returns_persistence.commands.validate import read_returns
from rvault_returns_persistence.persist import PersistRequest, persist


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "persist",
        help="persist a whole validated batch into the tracking database (dry run; --apply)",
        description=(
            "Validate the whole batch, verify and canonicalize every citation against the "
            "exact artifacts, merge each return into its talk and close each claim with its "
            "receipt; print the persistence report with the post-batch "
            "current_adherence_baseline. A dry run by default: nothing is written and "
            "next_command is the exact --apply --expected-sha256 command that installs the "
            "database once."
        ),
    )
    parser.add_argument("db", type=Path, metavar="DB", help="tracking-database.json")
    parser.add_argument(
        "returns", type=Path, metavar="RETURNS.json", help="the whole batch of returns"
    )
    parser.add_argument(
        "--run-date",
        required=True,
        metavar="ISO",
        help="the batch completion stamp (timezone-aware ISO-8601): processed_date, "
        "released_at and the baseline's as_of",
    )
    parser.add_argument(
        "--vault-root",
        type=Path,
        default=None,
        help="vault root holding transcripts/ and slides/ (default: the database's directory)",
    )
    tracking.apply_protocol.add_arguments(parser)
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    document = read_returns(args.returns)
    verb = "persisting" if args.apply else "dry run (nothing is written): checking"
    progress(f"{verb} {args.returns} into {args.db}")
    report = persist(
        PersistRequest(
            database=args.db,
            returns=document,
            run_date=args.run_date,
            vault_root=args.vault_root,
            catalog_dir=args.catalog,
            apply=args.apply,
            expected_sha256=args.expected_sha256,
        )
    )
    verb = "persisted" if report["database_written"] else "would persist"
    progress(
        f"{verb} {len(report['talks'])} talks ({report['durability_state']}); "
        f"output {report['output_sha256']}"
    )
    if report["next_command"] is not None:
        progress(f"review, then apply with: {report['next_command']}")
    emit(report)
    return EXIT_OK
