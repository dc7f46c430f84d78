"""Command line of ``rvault-video``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.__about__ import __version__
from rvault_video_extraction.commands import download as download_command
from rvault_video_extraction.commands import extract as extract_command
from rvault_video_extraction.commands import promote as promote_command
from rvault_video_extraction.commands import validate as validate_command
from rvault_video_extraction.hints import HINTS

PROG = "rvault-video"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Slides from talk videos: OpenCV sampling, perceptual dedupe, slide-region crop, "
            "manifest v4."
        ),
        __version__,
        [extract_command, validate_command, promote_command, download_command],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
