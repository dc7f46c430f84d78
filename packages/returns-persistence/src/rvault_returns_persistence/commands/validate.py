"""``rvault-returns validate RETURNS.json --db DB [--catalog DIR] [--vault-root DIR] [--member F]``.

Prints one returns-validation-report. Exit 0 only when every return is
valid; otherwise exit 2 with the same report (it also carries the
``cli-failure`` ``error`` object so generic callers see a refusal).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts.cli import EXIT_OK, EXIT_REFUSED, emit

from rvault_returns_persistence.commands.common import (
    add_catalog_argument,
    add_db_arguments,
    open_catalog,
    open_database,
)
from rvault_returns_persistence.returns_file import ReturnsFileWording, read_returns_file
from rvault_returns_persistence.validator import validate_batch

# A batch of returns is a few MiB; the bound keeps a hostile file from exhausting memory.
MAX_RETURNS_BYTES = 64 * 1024 * 1024


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate", help="validate a batch of worker returns (the deterministic gate)"
    )
    parser.add_argument(
        "returns", type=Path, metavar="RETURNS.json", help="an array or object of returns"
    )
    add_db_arguments(parser)
    add_catalog_argument(parser)
    parser.add_argument(
        "--member",
        metavar="FILENAME",
        default=None,
        help="check one batch member's return on its own, the way a worker validates before "
        "handing back (batch membership becomes a warning; persist still needs the whole batch)",
    )
    parser.set_defaults(handler=handle)


_WORDING = ReturnsFileWording(
    not_regular="the returns file must be a regular file",
    not_regular_hint="pass the returns JSON file itself, not a symlink or a directory",
    unreadable="cannot read the returns: {reason}",
    unreadable_hint="check the path and permissions of RETURNS.json",
    too_large="the returns file exceeds {limit} bytes; split the batch",
    too_large_hint="claim smaller batches (rvault-db queue claim --limit N)",
    invalid="{detail}",
    invalid_hint="write the returns as strict JSON (UTF-8, no duplicate keys, no NaN/Infinity)",
)


def read_returns(path: Path) -> object:
    return read_returns_file(path, max_bytes=MAX_RETURNS_BYTES, wording=_WORDING)


def handle(args: argparse.Namespace) -> int:
    document = read_returns(args.returns)
    db, vault_root = open_database(args)
    catalog, label = open_catalog(args)
    # BatchShapeError (not a batch) is a cli-failure refusal at "$".
    report = validate_batch(
        document,
        db=db,
        catalog=catalog,
        vault_root=vault_root,
        catalog_label=label,
        member=args.member,
    )
    emit(report)
    return EXIT_OK if report["ok"] else EXIT_REFUSED
