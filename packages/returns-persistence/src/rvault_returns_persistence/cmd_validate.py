"""``rvault-returns validate RETURNS.json --db DB [--catalog DIR] [--vault-root DIR] [--member F]``.

Prints one returns-validation-report. Exit 0 only when every return is
valid; otherwise exit 2 with the same report (it also carries the
``cli-failure`` ``error`` object so generic callers see a refusal).
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from rvault_contracts.cli import EXIT_OK, EXIT_REFUSED, Refusal, emit
from rvault_contracts.strict_json import StrictJSONError, loads_strict_any

from rvault_returns_persistence.cmd_common import (
    add_catalog_argument,
    add_db_arguments,
    open_catalog,
    open_database,
)
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


def read_returns(path: Path) -> object:
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            raise Refusal(
                "returns_not_regular_file",
                "the returns file must be a regular file",
                str(path),
                hint="pass the returns JSON file itself, not a symlink or a directory",
            )
        with open(path, "rb") as handle:
            data = handle.read(MAX_RETURNS_BYTES + 1)
    except OSError as exc:
        raise Refusal(
            "returns_unreadable",
            f"cannot read the returns: {exc.strerror}",
            str(path),
            hint="check the path and permissions of RETURNS.json",
        ) from None
    if len(data) > MAX_RETURNS_BYTES:
        raise Refusal(
            "returns_too_large",
            f"the returns file exceeds {MAX_RETURNS_BYTES} bytes; split the batch",
            str(path),
            hint="claim smaller batches (rvault-db queue claim --limit N)",
        )
    try:
        return loads_strict_any(data)
    except StrictJSONError as exc:
        raise Refusal(
            f"returns_{exc.code}",
            exc.message,
            exc.path,
            hint="write the returns as strict JSON (UTF-8, no duplicate keys, no NaN/Infinity)",
        ) from None


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
