"""``rvault-db status DB [--format table|json]``: each talk's state and next action.

A table on a terminal, the ``db-status-report`` v1 JSON document otherwise
(or whichever ``--format`` names). Read-only: no lock, nothing written.
"""

from __future__ import annotations

from typing import Any

from rvault_tracking_db.commands.lazy import lazy_handler


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
    parser.set_defaults(
        handler=lazy_handler("rvault_tracking_db.commands.status_run", "run_status")
    )
