"""``rvault-returns persist DB RETURNS.json --run-date ISO [--vault-root DIR] [--catalog DIR]``.

A thin CLI over :func:`rvault_returns_persistence.persist.persist`: it reads
the returns file (strict JSON, bounded), builds the request and prints the
``returns-persistence-report`` v1. Every refusal is a ``cli-failure`` with a
``hint`` (exit 2) and leaves the database's bytes and inode unchanged.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts.cli import EXIT_OK, emit, progress

from rvault_returns_persistence.commands.common import add_catalog_argument
from rvault_returns_persistence.commands.validate import read_returns
from rvault_returns_persistence.persist import PersistRequest, persist


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "persist",
        help="persist a whole validated batch into the tracking database (one transaction)",
        description=(
            "Validate the whole batch, verify and canonicalize every citation against the "
            "exact artifacts, merge each return into its talk, close each claim with its "
            "receipt and install the database once; print the persistence report with the "
            "post-batch current_adherence_baseline."
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
    parser.add_argument(
        "--expected-sha256",
        metavar="HEX",
        default=None,
        help="optional: persist only into this exact database generation (its SHA-256, "
        "e.g. the input_sha256 another tool reported); refused as expected_sha256_mismatch",
    )
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    document = read_returns(args.returns)
    progress(f"persisting {args.returns} into {args.db}")
    report = persist(
        PersistRequest(
            database=args.db,
            returns=document,
            run_date=args.run_date,
            vault_root=args.vault_root,
            catalog_dir=args.catalog,
            expected_sha256=args.expected_sha256,
        )
    )
    progress(
        f"persisted {len(report['talks'])} talks ({report['durability_state']}); "
        f"output {report['output_sha256']}"
    )
    emit(report)
    return EXIT_OK
