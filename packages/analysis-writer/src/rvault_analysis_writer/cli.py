"""Command line of ``rvault-analysis``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_analysis_writer.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_analysis_writer.codes")

PROG = "rvault-analysis"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_analysis_writer.commands.write",
        {
            "write": "render the Markdown analyses of a completed, receipt-bound batch",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_analysis_writer.commands.site",
        {
            "site": "render a static HTML report of the whole vault into OUTDIR",
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        "Renders receipt-bound per-talk Markdown analyses.",
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
