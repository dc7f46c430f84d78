"""Command line of ``rvault-batch`` (one module per subcommand, see ``commands``)."""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_archive_batch.__about__ import __version__
from rvault_archive_batch.commands import plan as plan_command
from rvault_archive_batch.commands import run as run_command

PROG = "rvault-batch"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Archive scale: acquire many talks' evidence on Dask through the owners' tools; "
            "the tracking database is written once per batch, by its owner."
        ),
        __version__,
        [plan_command, run_command],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv)
