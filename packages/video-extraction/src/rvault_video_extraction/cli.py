"""Command line of ``rvault-video``.

Each subcommand lives in its own module and registers itself here; stdout is
one JSON document, progress goes to stderr (see ``rvault_contracts.cli``).
"""

from __future__ import annotations

import argparse
import signal
import sys

from rvault_contracts import cli as contract_cli

from rvault_video_extraction import download_command, extract_command, validate_command
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
    download_command.register(subparsers)
    return parser


def _printable(text: str) -> str:
    """``text`` with undecodable bytes (surrogate escapes) spelled as ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    # SIGTERM/SIGHUP unwind like Ctrl-C: the run's cleanup (intermediate frames, directories it
    # created) happens and stdout carries the `interrupted` document instead of nothing.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    try:
        return contract_cli.run(build_parser(), arguments)
    except UnicodeEncodeError:
        # A non-UTF-8 argument (or file name) reached the JSON document, which
        # cannot carry it: refuse with one document instead of a traceback.
        bad = [arg for arg in arguments if _printable(arg) != arg]
        contract_cli.emit(
            contract_cli.failure_document(
                "argument_not_utf8",
                "a command-line argument or file name is not valid UTF-8",
                _printable(bad[0]) if bad else None,
            )
        )
        return contract_cli.EXIT_REFUSED
