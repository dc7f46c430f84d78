"""Command line of ``rvault-pptx``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from rvault_contracts import cli as contract_cli

from rvault_pptx_evidence.__about__ import __version__
from rvault_pptx_evidence.commands import extract

PROG = "rvault-pptx"


def _no_command(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        parser.print_usage(sys.stderr)
        raise contract_cli.Refusal("usage_error", "no COMMAND given; see usage on stderr")

    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Native deck evidence: PPTX extraction schema v4 with honest capability bindings."
        ),
        epilog="Exit status: 0 success, 2 refused input or failed precondition, 1 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # Without a COMMAND, ``rvault_contracts.cli.run`` would print usage and exit 2
    # with an empty stdout; this default keeps stdout one JSON document.
    parser.set_defaults(handler=_no_command(parser))
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    extract.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    return contract_cli.run(build_parser(), argv)
