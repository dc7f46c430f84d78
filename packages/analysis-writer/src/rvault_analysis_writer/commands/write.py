"""``rvault-analysis write RETURNS.json OUTDIR --db DB [--catalog DIR]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "write",
        help="render the Markdown analyses of a completed, receipt-bound batch",
        description=(
            "Authorize RETURNS.json against the completed claims in DB (every receipt "
            "recomputed, scoring generations checked against the current catalog), render "
            "one Markdown analysis per processed talk from the persisted talk, and replace "
            "them in OUTDIR as one transaction. Skipped talks are not rendered. stdout is "
            "the analysis-write-report v1."
        ),
    )
    parser.add_argument("returns", type=Path, metavar="RETURNS.json")
    parser.add_argument("outdir", type=Path, metavar="OUTDIR")
    parser.add_argument(
        "--db", type=Path, required=True, metavar="DB", help="tracking-database.json"
    )
    parser.add_argument(
        "--catalog",
        type=Path,
        default=None,
        metavar="DIR",
        help="pattern catalog directory (default: the shipped catalog)",
    )
    parser.add_argument(
        "--outside-vault",
        action="store_true",
        help="allow OUTDIR outside the database's directory (the vault); never a symlink",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    # Imported when the command runs (as ``site`` does): authorizing a batch reads the
    # database, the returns and the ledgers (about 100 ms of imports), which neither
    # ``write --help`` nor a refused command line needs.
    from rvault_analysis_writer.write import WriteRequest, write_analyses

    request = WriteRequest(
        args.returns, args.outdir, args.db, args.catalog, outside_vault=args.outside_vault
    )
    report = write_analyses(request, contract_cli.progress)
    contract_cli.emit(report)
    return contract_cli.finish(contract_cli.EXIT_OK)
