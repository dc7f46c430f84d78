"""The command-line conventions every owner tool shares.

stdout carries exactly one JSON object (the contract); progress and
diagnostics go to stderr. Exit 0 is success, 2 a refused input or failed
precondition, 1 an internal error. A refusal is the ``cli-failure`` v1
contract: ``{"ok": false, "error": {"code", "message", "path"}}`` plus any
tool-specific context keys.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
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


# Set by console_main when this process *is* a console script (argv None).
_console_process = False


def finish(code: int) -> int:
    """A handler's last call: ``return finish(EXIT_OK)`` once its work is complete.

    In a console script this flushes stdout and stderr and ends the process
    right here, with the handler's objects still alive: a command that
    decoded a 100 MB vault holds millions of them, and freeing them one by
    one (plus unmapping the big buffers) costs 0.1-0.2 s that achieves
    nothing the kernel does not do at once, which is also why C compilers
    skip freeing at exit. The caller must have closed every file and lock.
    In-process (tests, library use) it just returns ``code``.
    """
    if not _console_process:
        return code
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = code or EXIT_INTERNAL
    os._exit(code)


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


def printable(text: str) -> str:
    """``text`` with undecodable bytes (surrogate escapes) spelled as ``\\xNN``."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _unwind(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def console_main(build_parser: Callable[[], Any], argv: list[str] | None = None) -> int:
    """The entry point every owner console script delegates to.

    As a console script (``argv`` None), SIGTERM and SIGHUP unwind like
    Ctrl-C, so writers roll back, workers are killed and stdout still carries
    the ``interrupted`` document. Arguments that are not valid UTF-8 (they
    reach Python as surrogate escapes) are refused before anything runs: no
    JSON document could carry them, and failing only at the final emit would
    come after a finished write.
    """
    global _console_process
    arguments = sys.argv[1:] if argv is None else list(argv)
    if argv is None:
        _console_process = True
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _unwind)
    for argument in arguments:
        if printable(argument) != argument:
            emit(
                failure_document(
                    "argument_not_utf8",
                    "a command-line argument (path or label) is not valid UTF-8",
                    printable(argument),
                )
            )
            return EXIT_REFUSED
    return run(build_parser(), arguments)
