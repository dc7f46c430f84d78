"""Command line of ``rvault-transcript``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli

from rvault_transcript.__about__ import __version__
from rvault_transcript.commands import fetch as fetch_command
from rvault_transcript.commands import recover as recover_command
from rvault_transcript.commands import verify as verify_command
from rvault_transcript.commands import vtt_cleanup as vtt_cleanup_command
from rvault_transcript.hints import HINTS

PROG = "rvault-transcript"


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Transcript acquisition (captions, local Whisper, VTT import)"
            " with timing and quality receipts."
        ),
        __version__,
        [fetch_command, vtt_cleanup_command, verify_command, recover_command],
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
