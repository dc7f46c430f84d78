"""Command line of ``rvault-transcript``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse

from rvault_contracts import cli as contract_cli
from rvault_contracts.hints import LazyHints

from rvault_transcript.__about__ import __version__

# Read when a refusal first needs a hint; --version and --help never import the codes.
HINTS = LazyHints("rvault_transcript.codes")

PROG = "rvault-transcript"


# Each subcommand's module is imported only when that subcommand runs (or its
# --help is shown): --version and --help import none of them. The one-line
# helps are the ones each module registers (a mismatch fails on first use).
COMMANDS = [
    contract_cli.LazyCommand(
        "rvault_transcript.commands.fetch",
        {
            "fetch": (
                "captions first, local Whisper fallback; validated, receipts, one atomic bundle"
            ),
        },
    ),
    contract_cli.LazyCommand(
        "rvault_transcript.commands.vtt_cleanup",
        {
            "vtt-cleanup": "WebVTT -> clean transcript + timing receipt v2 (vtt_artifact)",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_transcript.commands.verify",
        {
            "verify": "re-hash and re-validate receipts; report plain/timed quote evidence",
        },
    ),
    contract_cli.LazyCommand(
        "rvault_transcript.commands.recover",
        {
            "recover": "settle a transcript bundle a kill left between its renames",
        },
    ),
]


def build_parser() -> argparse.ArgumentParser:
    return contract_cli.build_parser(
        PROG,
        (
            "Transcript acquisition (captions, local Whisper, VTT import)"
            " with timing and quality receipts."
        ),
        __version__,
        COMMANDS,
    )


def main(argv: list[str] | None = None) -> int:
    return contract_cli.console_main(build_parser, argv, HINTS)
