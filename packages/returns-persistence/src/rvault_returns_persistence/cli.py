"""Command line of ``rvault-returns``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_returns_persistence import cmd_catalog, cmd_persist, cmd_scaffold, cmd_validate
from rvault_returns_persistence.__about__ import __version__

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
        [cmd_validate, cmd_scaffold, cmd_catalog, cmd_persist],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv)
