"""Command line of ``rvault-returns``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_returns_persistence.__about__ import __version__
from rvault_returns_persistence.commands import catalog as catalog_command
from rvault_returns_persistence.commands import feedback as feedback_command
from rvault_returns_persistence.commands import persist as persist_command
from rvault_returns_persistence.commands import scaffold as scaffold_command
from rvault_returns_persistence.commands import validate as validate_command

PROG = "rvault-returns"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "The deterministic gate for AI worker returns: "
            "pattern catalog, return scaffolds, validation (read-only) and persist (the one "
            "command that writes: a whole batch into the tracking database)."
        ),
        __version__,
        [validate_command, scaffold_command, catalog_command, feedback_command, persist_command],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv)
