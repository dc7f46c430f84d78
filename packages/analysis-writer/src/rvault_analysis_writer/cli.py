"""Command line of ``rvault-analysis``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_analysis_writer import write_command
from rvault_analysis_writer.__about__ import __version__
from rvault_analysis_writer.site import command as site_command

PROG = "rvault-analysis"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Renders receipt-bound per-talk Markdown analyses.",
        epilog="Exit status: 0 success, 2 refused input or failed precondition, 1 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    write_command.register(subparsers)
    site_command.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv)
