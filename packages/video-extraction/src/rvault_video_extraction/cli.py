"""Command line of ``rvault-video``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_video_extraction.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_video_extraction.codes")

PROG = "rvault-video"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_video_extraction.commands.extract",
        {
            "extract": "sample a talk video, keep distinct slides, write two PDFs and manifest v4",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_video_extraction.commands.validate",
        {
            "validate": (
                "validate a video manifest as one referential unit (flags, counts, "
                "paths, PDFs) and re-check the recording and PDFs against their "
                "recorded digests"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_video_extraction.commands.promote",
        {
            "promote": (
                "copy a trusted slide_region PDF to slides/{id}.pdf and print its slides_local_path"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_video_extraction.commands.download",
        {
            "download": "download one talk video at <=720p mp4 to slides-rebuild/{id}/{id}.mp4",
            "batch-download": "download several talk videos (each as `download`)",
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Slides from talk videos: OpenCV sampling, perceptual dedupe, slide-region crop, "
            "manifest v4."
        ),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
