"""Command line of ``rvault-video``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_video_extraction import (
    download_command,
    extract_command,
    promote_command,
    validate_command,
)
from rvault_video_extraction.__about__ import __version__

PROG = "rvault-video"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Slides from talk videos: OpenCV sampling, perceptual dedupe, slide-region crop, "
            "manifest v3."
        ),
        epilog="Exit status: 0 success, 2 refused input or failed precondition, 1 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    extract_command.register(subparsers)
    validate_command.register(subparsers)
    promote_command.register(subparsers)
    download_command.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv)
