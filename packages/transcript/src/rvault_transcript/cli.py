"""Command line of ``rvault-transcript``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse
import signal
import sys

from rvault_contracts import cli as contract_cli

from rvault_transcript import fetch_command, verify_command, vtt_command
from rvault_transcript.__about__ import __version__

PROG = "rvault-transcript"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Transcript acquisition (captions, local Whisper, VTT import)"
            " with timing and quality receipts."
        ),
        epilog="Exit status: 0 success, 2 refused input or failed precondition, 1 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    fetch_command.register(subparsers)
    vtt_command.register(subparsers)
    verify_command.register(subparsers)
    return parser


def _printable(text: str) -> str:
    """``text`` with undecodable bytes (surrogate escapes) spelled as ``\\xNN``."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if argv is None:
        # As a console script, SIGTERM/SIGHUP unwind like Ctrl-C: the writer's
        # cleanup/rollback (and the worker kill) run, and stdout carries the
        # ``interrupted`` document instead of nothing.
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _interrupt)
    for argument in arguments:
        # Refused before anything runs: a non-UTF-8 path cannot appear in a JSON
        # document, and failing only at the final emit would follow a finished write.
        if _printable(argument) != argument:
            contract_cli.emit(
                contract_cli.failure_document(
                    "argument_not_utf8",
                    "a command-line argument (path or label) is not valid UTF-8",
                    _printable(argument),
                )
            )
            return contract_cli.EXIT_REFUSED
    return contract_cli.run(build_parser(), arguments)
