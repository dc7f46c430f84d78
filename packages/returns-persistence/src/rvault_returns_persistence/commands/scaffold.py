"""``rvault-returns scaffold --db DB --talk FILENAME "
"[--vault-root DIR]``: a v5 skeleton on stdout."""

from __future__ import annotations

import argparse

from rvault_contracts.cli import EXIT_OK, Refusal, emit, progress
from rvault_contracts.suggest import closest, did_you_mean

from rvault_returns_persistence.commands.common import (
    add_catalog_argument,
    add_db_arguments,
    open_catalog,
    open_database,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scaffold", help="print a return v5 skeleton for a talk's active claim"
    )
    add_db_arguments(parser)
    parser.add_argument("--talk", required=True, metavar="FILENAME", help="the talk's .md filename")
    add_catalog_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_returns_persistence.scaffold import field_guide, scaffold_with_guide

    db, vault_root = open_database(args)
    catalog, _ = open_catalog(args)
    talk = db.talk(args.talk)
    if talk is None:
        raise Refusal(
            "talk_not_found",
            f"{args.talk} is not exactly one talk of the database"
            + did_you_mean(args.talk, db.talks),
            "--talk",
            closest=closest(args.talk, db.talks),
            hint="pass the talk's exact filename (rvault-db read DB lists them)",
        )
    skeleton, needs, rows = scaffold_with_guide(  # ScaffoldError is a cli-failure refusal
        talk, catalog, vault_root, db.deck_slides(talk)
    )
    progress("what belongs in each field (worker-return v5):")
    for line in field_guide(skeleton):
        progress("  " + line)
    if rows:
        progress(
            "the pre-filled not_evaluable rows are absences the inspected sources cannot "
            "establish; if you detect one of those patterns, delete its not_evaluable row. "
            "Why each row is there (the unmet gate):"
        )
        for line in rows:
            progress("  " + line)
    if needs:
        progress("applicability assessments still required for: " + ", ".join(needs))
    emit(skeleton)
    return EXIT_OK
