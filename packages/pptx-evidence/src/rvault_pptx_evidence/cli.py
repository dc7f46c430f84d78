"""Command line of ``rvault-pptx``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_pptx_evidence.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_pptx_evidence.codes")

PROG = "rvault-pptx"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_pptx_evidence.commands.extract",
        {
            "extract": "extract schema-v5 native deck evidence from one .pptx",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_pptx_evidence.commands.probe_pdf",
        {
            "probe-pdf": "probe a rendered PDF (bounded, strict, complete page walk) in a worker",
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        ("Native deck evidence: PPTX extraction schema v5 with honest capability bindings."),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
