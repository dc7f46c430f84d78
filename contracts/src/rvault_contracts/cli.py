"""The command-line conventions every owner tool shares.

stdout carries exactly one JSON object (the contract); progress and
diagnostics go to stderr. Exit 0 is success, 2 a refused input or failed
precondition, 1 an internal error. A refusal is the ``cli-failure`` v1
contract: ``{"ok": false, "error": {"code", "message", "path"}}`` plus any
tool-specific context keys.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn, TextIO

from rvault_contracts.canonical import artifact_bytes

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_REFUSED = 2


class Refusal(Exception):
    """A refused input or failed precondition: exit 2, nothing written."""

    def __init__(self, code: str, message: str, path: str | None = None, **context: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path
        self.context = context

    def to_dict(self) -> dict[str, Any]:
        return failure_document(self.code, self.message, self.path, **self.context)


def failure_document(
    code: str, message: str, path: str | None = None, **context: Any
) -> dict[str, Any]:
    document: dict[str, Any] = dict(context)
    document["ok"] = False
    document["error"] = {"code": code, "message": message, "path": path}
    return document


def emit(document: dict[str, Any], stream: TextIO | None = None) -> None:
    """Write one JSON document to stdout in the deterministic artifact encoding."""
    out = stream if stream is not None else sys.stdout
    out.write(artifact_bytes(document).decode("utf-8"))
    out.flush()


def progress(message: str) -> None:
    """A progress line on stderr; never on stdout."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def refuse(code: str, message: str, path: str | None = None, **context: Any) -> NoReturn:
    raise Refusal(code, message, path, **context)


def run(parser: Any, argv: list[str] | None = None) -> int:
    """Parse, dispatch to ``args.handler`` and map outcomes to exit codes.

    A handler returns an exit code. A :class:`Refusal` prints the
    ``cli-failure`` document and exits 2; anything unexpected prints an
    ``internal_error`` document and exits 1, so stdout is always one JSON
    object once a subcommand has started.
    """
    try:
        args = parser.parse_args(argv)
    except SystemExit as exited:
        # argparse has printed usage to stderr; --help/--version exit 0 as usual.
        if exited.code not in (0, None):
            emit(failure_document("usage_error", "invalid command line; see usage on stderr"))
            return EXIT_REFUSED
        raise
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        emit(failure_document("usage_error", "no COMMAND given; see usage on stderr"))
        return EXIT_REFUSED
    try:
        return int(handler(args))
    except Refusal as refusal:
        emit(refusal.to_dict())
        return EXIT_REFUSED
    except KeyboardInterrupt:
        emit(failure_document("interrupted", "interrupted by the user"))
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001 - the contract is one JSON object, always
        emit(failure_document("internal_error", f"{type(exc).__name__}: {exc}"))
        return EXIT_INTERNAL
