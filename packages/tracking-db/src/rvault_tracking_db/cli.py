"""Command line of ``rvault-db``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_tracking_db.__about__ import __version__
from rvault_tracking_db.commands import goals as goals_command
from rvault_tracking_db.commands import init as init_command
from rvault_tracking_db.commands import migrate as migrate_command
from rvault_tracking_db.commands import mutate as mutate_command
from rvault_tracking_db.commands import preflight as preflight_command
from rvault_tracking_db.commands import queue as queue_command
from rvault_tracking_db.commands import read as read_command
from rvault_tracking_db.commands import scan_shownotes as scan_shownotes_command
from rvault_tracking_db.commands import sources as sources_command
from rvault_tracking_db.commands import status as status_command
from rvault_tracking_db.decoding import collector_paused
from rvault_tracking_db.hints import HINTS

PROG = "rvault-db"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Owner of tracking-database.json: init, strict read, status, typed mutations, "
            "source lanes, migration, queue claims and shownotes scans. Every writing command "
            "is a dry run unless --apply --expected-sha256 HEX names the bytes it reviewed."
        ),
        __version__,
        [
            init_command,
            read_command,
            status_command,
            mutate_command,
            migrate_command,
            queue_command,
            scan_shownotes_command,
            sources_command,
            goals_command,
            preflight_command,
        ],
    )


def main(argv: list[str] | None = None) -> int:
    """Run one command with the cyclic collector paused.

    Every command is short and holds the whole database as one large acyclic
    tree; left running, the collector would traverse that tree again and again
    (a third of a 10,000-talk read). Reference counting frees it as usual.
    """
    with collector_paused():
        return contract_cli.console_main(build_parser, argv, HINTS)
