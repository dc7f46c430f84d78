"""Command line of ``rvault-analysis``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_analysis_writer.__about__ import __version__
from rvault_analysis_writer.commands import site as site_command
from rvault_analysis_writer.commands import write as write_command
from rvault_analysis_writer.hints import HINTS

PROG = "rvault-analysis"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        "Renders receipt-bound per-talk Markdown analyses.",
        __version__,
        [write_command, site_command],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
