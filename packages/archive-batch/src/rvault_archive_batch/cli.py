"""Command line of ``rvault-batch`` (one module per subcommand, see ``commands``)."""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_archive_batch.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_archive_batch.codes")

PROG = "rvault-batch"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_archive_batch.commands.plan",
        {
            "plan": "list the acquisition tasks from rvault-db status (read-only)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_archive_batch.commands.run",
        {
            "run": "run the planned tasks on Dask and register them in one transaction",
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Archive scale: acquire many talks' evidence on Dask through the owners' tools; "
            "the tracking database is written once per batch, by its owner."
        ),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
