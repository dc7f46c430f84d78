"""Command line of ``rvault-pptx``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_pptx_evidence.__about__ import __version__
from rvault_pptx_evidence.commands import extract, probe_pdf
from rvault_pptx_evidence.hints import HINTS

PROG = "rvault-pptx"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        ("Native deck evidence: PPTX extraction schema v5 with honest capability bindings."),
        __version__,
        [extract, probe_pdf],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
