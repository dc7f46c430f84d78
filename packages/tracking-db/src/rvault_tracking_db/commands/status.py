"""``rvault-db status DB [--format table|json]``: each talk's state and next action.

A table on a terminal, the ``db-status-report`` v1 JSON document otherwise
(or whichever ``--format`` names). Read-only: no lock, nothing written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rvault_contracts.cli import emit, finish

from rvault_tracking_db.status import render_table
from rvault_tracking_db.streamed_status import status_report


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "status",
        help="one row per talk: status, sources, deck, video, claim, score and the next action",
        description=(
            "Reads the database through the owner read and the owners' public readers and "
            "prints one row per talk plus vault totals: a table on a terminal, JSON otherwise."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default=None,
        help="default: table when stdout is a terminal, else json",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    report = status_report(args.database)
    chosen = args.format or ("table" if sys.stdout.isatty() else "json")
    if chosen == "table":
        sys.stdout.write(render_table(report))
        sys.stdout.flush()
    else:
        emit(report)
    return finish(0)
