"""``rvault-returns feedback PATH... [--vault DIR] [--db DB] [--catalog DIR]``.

Prints one catalog-feedback-report and writes nothing. Exit 0 when every
entry is usable; exit 2 with the same report (and its ``error`` object) when
an entry, a return or a suggested name's polarity needs a person's triage.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts.cli import EXIT_OK, EXIT_REFUSED, Refusal, emit

from rvault_returns_persistence.commands.common import add_catalog_argument, open_catalog
from rvault_returns_persistence.database import load_database
from rvault_returns_persistence.feedback import aggregate_feedback

#: Where a vault keeps the return batches it was given (see the README).
RETURNS_DIR = "returns"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "feedback",
        help="aggregate the catalog feedback of current and historical returns (read-only)",
    )
    parser.add_argument(
        "paths",
        type=Path,
        nargs="*",
        metavar="PATH",
        help="return files or directories searched for *.json (default: VAULT/returns)",
    )
    parser.add_argument(
        "--vault",
        type=Path,
        default=None,
        help="the vault root: sources are named vault-relative, and its tracking-database.json "
        "binds each return to the receipt persist stored",
    )
    parser.add_argument(
        "--db", type=Path, default=None, help="tracking-database.json (default: VAULT's)"
    )
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    paths = list(args.paths)
    if not paths:
        if args.vault is None:
            raise Refusal(
                "feedback_no_input",
                "name the returns to read",
                None,
                hint="pass return files or directories, or --vault DIR to read DIR/returns",
            )
        paths = [args.vault / RETURNS_DIR]
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise Refusal(
                "feedback_input_missing",
                f"{path} does not exist",
                str(path),
                hint="pass an existing return file or directory (paths are relative to the "
                "working directory)",
            )
    db_path = args.db or (args.vault / "tracking-database.json" if args.vault else None)
    db = load_database(db_path) if db_path is not None else None
    catalog, label = open_catalog(args)
    report = aggregate_feedback(paths, catalog=catalog, catalog_label=label, db=db, base=args.vault)
    emit(report)
    return EXIT_OK if report["ok"] else EXIT_REFUSED
