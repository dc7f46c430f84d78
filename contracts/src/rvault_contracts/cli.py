"""The command-line conventions every owner tool shares.

stdout carries exactly one JSON object (the contract); progress and
diagnostics go to stderr. Exit 0 is success, 2 a refused input or failed
precondition, 1 an internal error. A refusal is the ``cli-failure`` v1
contract: ``{"ok": false, "error": {"code", "message", "path"}}`` plus any
tool-specific context keys.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

from rvault_contracts import extension_imports, hints
from rvault_contracts.errors import Refusal, failure_document

# typing is 2 ms of every console script's start-up; the annotations only name it
# (``from __future__ import annotations``), so it is imported for type checkers alone.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn, Protocol, TextIO

    class Command(Protocol):
        """A subcommand module: ``register`` adds its parser and sets ``handler``."""

        def register(self, subparsers: Any) -> None: ...


EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_REFUSED = 2
# Ctrl-C, SIGTERM or SIGHUP before the command's report: 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130


def emit(document: dict[str, Any], stream: TextIO | None = None) -> None:
    """Write one JSON document to stdout in the deterministic artifact encoding.

    A failure document without a ``hint`` gets its code's default here
    (:mod:`rvault_contracts.hints`), the one place every refusal passes.
    """
    from rvault_contracts.canonical import artifact_bytes  # json and hashlib: not for --help

    out = stream if stream is not None else sys.stdout
    if stream is None:
        _report_is_final()
        _raise_if_swallowed()
    out.write(artifact_bytes(hints.with_hint(document)).decode("utf-8"))
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
    _note_deferred_exit()
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


# The command line being run (program name and arguments), recorded by ``run`` so a
# dry run can print the exact apply command to run next (:func:`apply_command`).
_invocation: tuple[str, ...] | None = None

APPLY_FLAG = "--apply"
EXPECTED_FLAG = "--expected-sha256"


def invocation() -> tuple[str, ...] | None:
    """The program name and arguments of the command ``run`` is running (None outside it)."""
    return _invocation


def apply_command(input_sha256: str | None, words: tuple[str, ...] | None = None) -> str | None:
    """The exact command that applies the dry run ``words`` reviewed (shell-quoted).

    ``words`` (default: the running command line, see :func:`invocation`) with
    any ``--apply`` / ``--expected-sha256 HEX`` dropped, followed by ``--apply
    --expected-sha256 INPUT_SHA256``; for a database a dry run found missing
    (``input_sha256`` None) the digest is the literal ``missing``. Paths stay
    as they were typed, so the command runs from the same working directory.
    None when no command line is known (library use).
    """
    words = _invocation if words is None else words
    if not words:
        return None
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == EXPECTED_FLAG:
            skip = True
        elif word != APPLY_FLAG and not word.startswith(EXPECTED_FLAG + "="):
            kept.append(word)
    digest = "missing" if input_sha256 is None else input_sha256
    return shlex.join([*kept, APPLY_FLAG, EXPECTED_FLAG, digest])


def _load_failure_report() -> None:
    """Load what reporting a refusal needs before the handler can meet a failing disk.

    The hint tables and the JSON encoding are imported lazily for a light
    start-up; imported after a handler's I/O failed (every ``openat`` refused
    with EROFS, an EIO), they would fail too and a refusal would become exit 1
    (``reliability/test_disk_full.py``).
    """
    from rvault_contracts import canonical  # noqa: F401 - emit's encoder, loaded now

    hints.load_tables()


def run(parser: Any, argv: list[str] | None = None) -> int:
    """Parse, dispatch to ``args.handler`` and map outcomes to exit codes.

    A handler returns an exit code. A :class:`Refusal` prints the
    ``cli-failure`` document and exits 2; anything unexpected prints an
    ``internal_error`` document and exits 1, so stdout is always one JSON
    object once a subcommand has started.
    """
    global _invocation
    _invocation = (str(getattr(parser, "prog", "")), *(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exited:
        # argparse has printed usage to stderr; --help/--version exit 0 as usual.
        if exited.code not in (0, None):
            emit(failure_document("usage_error", "invalid command line; see usage on stderr"))
            return EXIT_REFUSED
        raise
    except ModuleNotFoundError as missing:  # a LazyCommand's module, imported while parsing
        return _module_not_found(parser, missing)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        emit(failure_document("usage_error", "no COMMAND given; see usage on stderr"))
        return EXIT_REFUSED
    _load_failure_report()
    try:
        code = int(handler(args))
        _note_deferred_exit()
        return code
    except Refusal as refusal:
        emit(refusal.to_dict())
        return EXIT_REFUSED
    except KeyboardInterrupt:
        return _interrupted()
    except ModuleNotFoundError as missing:
        return _module_not_found(parser, missing)
    except Exception as exc:  # noqa: BLE001 - the contract is one JSON object, always
        emit(failure_document("internal_error", f"{type(exc).__name__}: {exc}"))
        return EXIT_INTERNAL


def _module_not_found(parser: Any, missing: ModuleNotFoundError) -> int:
    """A missing third-party library is ``dependency_missing``; a missing rvault module a bug."""
    if (missing.name or "").split(".")[0].startswith("rvault_"):
        emit(failure_document("internal_error", f"ModuleNotFoundError: {missing}"))
        return EXIT_INTERNAL
    emit(missing_dependency(parser.prog, missing.name or str(missing)))
    return EXIT_REFUSED


def missing_dependency(prog: str, module: str) -> dict[str, Any]:
    """The refusal for a command whose media library is not installed.

    Each owner's public readers install light; the libraries only some
    commands need (Whisper, PyAV, OpenCV, yt-dlp, ...) come with the tool's
    ``[media]`` extra, which the README's install line includes. A reader-only
    install that reaches such a command is a failed precondition with a fix,
    not an internal error.
    """
    return failure_document(
        "dependency_missing",
        f"this {prog} command needs the Python module {module!r}, which is not installed",
        None,
        hint=f"install {prog} with its media extra (the README's install line), "
        "e.g. pipx install './packages/<owner>[media]'",
    )


def printable(text: str) -> str:
    """``text`` with undecodable bytes (surrogate escapes) spelled as ``\\xNN``."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class _Signalled(KeyboardInterrupt):
    """The ``KeyboardInterrupt`` a console script's SIGINT/SIGTERM/SIGHUP handler raises."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


def _unwind(signum: int, frame: object) -> None:
    """SIGINT/SIGTERM/SIGHUP in a console script: unwind like Ctrl-C, where that is safe.

    Python runs the handler at whatever bytecode the main thread is at. Inside
    a C extension's initialisation the exception could land in C code that
    does not check for it (a crash, no JSON), so there the signal waits until
    the extension is whole (:mod:`rvault_contracts.extension_imports`).
    Elsewhere it raises, and remembers that it did: in a weakref callback, a
    ``__del__`` or an I/O object's finaliser Python swallows the exception
    and the command goes on, so the next safe point (a write about to start,
    the report about to be printed: :func:`_raise_if_swallowed`) raises it
    again.
    """
    if extension_imports.initialising():
        extension_imports.defer(signum)
        return
    if _console_process:  # in-process (tests) the caller sees the exception it provoked
        _raised_signals.append(signum)
    raise _Signalled(signum)


_raised_signals: list[int] = []


def _raise_if_swallowed() -> None:
    """Raise the interrupt a finaliser swallowed; the command must not go on as if none came."""
    if _raised_signals:
        raise _Signalled(_raised_signals[0])


def _unraisable(unraisable: Any) -> None:
    """An interrupt swallowed in a finaliser is no "Exception ignored" traceback.

    It is raised again at the next safe point (:func:`_raise_if_swallowed`);
    every other unraisable exception goes to Python's own hook (printed).
    """
    if not isinstance(unraisable.exc_value, _Signalled):
        sys.__unraisablehook__(unraisable)


def _interrupted() -> int:
    """The ``interrupted`` document and exit status, whatever phase the signal stopped.

    Start-up (imports, building the parser, parsing) writes nothing; a
    handler's writers roll back or report what landed (``landed_writes``).
    """
    _report_is_final()
    _raised_signals.clear()  # this is the report of the interrupt they raised
    landed = landed_writes()
    context = {"landed_writes": list(landed)} if landed else {}
    emit(failure_document("interrupted", "interrupted by the user", None, **context))
    return EXIT_INTERRUPTED


def _report_is_final() -> None:
    """In a console script, ignore unwinding signals from here on.

    Called just before the one stdout document is written: once a report
    exists, a late SIGTERM must neither split it, add a second document, nor
    end the process as killed (exit 143) after a write it reports landed
    (Python restores a handler it installed to the default at shutdown, and
    a default SIGTERM kills). The process only finishes from here.
    """
    if not _console_process or threading.current_thread() is not threading.main_thread():
        return
    for signum in _DEFERRABLE:
        _saved_handlers.pop(signum, None)
        while signal.getsignal(signum) is not signal.SIG_IGN:
            try:
                signal.signal(signum, signal.SIG_IGN)
            except KeyboardInterrupt:  # came in while ignoring: the report goes out anyway
                if _raised_signals:
                    _raised_signals.pop()


# --------------------------------------------------------------------------- landed writes
#
# Once a writer has issued an install syscall, the file on disk is the new
# generation whatever happens next; an interrupt that unwinds Python after
# that point would report ``interrupted`` for a write that landed (and undo a
# backup the new file depends on). Writers therefore run the install syscall
# and the rest of their transaction inside :func:`deferred_interrupts`: an
# unwinding signal (SIGINT, SIGTERM, SIGHUP with a Python handler) is recorded
# instead of raised. In a console process the recording stays in force until
# the handler has returned (its report says what is on disk) and the process
# ends with the handler's own exit code; a later writer call in the same
# handler is refused as ``interrupted`` before it touches anything. Outside a
# console process (library use, tests) the recorded signal is re-delivered to
# its original handler when the transaction ends.

_DEFERRABLE = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_pending_signals: list[int] = []
_saved_handlers: dict[int, Any] = {}
_landed: list[str] = []
_depth = 0


def _record(signum: int, frame: object) -> None:
    _pending_signals.append(signum)


def pending_interrupt() -> int | None:
    """The first unwinding signal recorded while a write was landing, if any."""
    return _pending_signals[0] if _pending_signals else None


def landed_writes() -> tuple[str, ...]:
    """Paths whose install syscall ran in this process while interrupts were deferred."""
    return tuple(_landed)


def note_landed(path: str) -> None:
    """Record that ``path`` was installed (called by the writer after the syscall)."""
    _landed.append(path)


def raise_if_interrupted() -> None:
    """Refuse to start a new write once an interrupt is pending (nothing touched yet)."""
    if _pending_signals and _console_process:
        raise KeyboardInterrupt(f"signal {_pending_signals[0]}")
    _raise_if_swallowed()


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Record, instead of raise, unwinding signals for the duration of an install.

    Only the main thread can change handlers; a writer on another thread is
    not where Python delivers the exception anyway, so it runs unchanged.
    """
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth == 0 and not _saved_handlers:
        for signum in _DEFERRABLE:
            handler = signal.getsignal(signum)
            if callable(handler) and handler is not _record:
                _saved_handlers[signum] = handler
                signal.signal(signum, _record)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and not (_console_process and _landed):
            _restore_handlers()


def _restore_handlers() -> None:
    """Put the original handlers back and re-deliver what was recorded."""
    saved = dict(_saved_handlers)
    _saved_handlers.clear()
    for signum, handler in saved.items():
        signal.signal(signum, handler)
    pending = list(dict.fromkeys(_pending_signals))
    _pending_signals.clear()
    for signum in pending:
        if signum in saved:
            signal.raise_signal(signum)


def _note_deferred_exit() -> None:
    signum = pending_interrupt()
    if signum is not None:
        progress(
            f"signal {signum} arrived while a write was landing; the report above says "
            "what is on disk"
        )


EXIT_EPILOG = (
    "Exit status: 0 success, 2 refused input or failed precondition, 1 internal error, "
    "130 interrupted (Ctrl-C, SIGTERM or SIGHUP before the report; nothing changed "
    "beyond the landed_writes it lists)."
)


def build_parser(
    prog: str, description: str, version: str, commands: Iterable[Command]
) -> argparse.ArgumentParser:
    """The one shape of every owner's console script.

    ``--help`` and ``--version`` on the top level, the exit-status epilog, and a
    required ``COMMAND``: a bare invocation is the same ``usage_error``
    document in every tool (``run`` maps argparse's exit 2 onto it).
    """
    parser = _Parser(prog=prog, description=description, epilog=EXIT_EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    subparsers = parser.add_subparsers(
        title="commands",
        metavar="COMMAND",
        dest="command",
        required=True,
        parser_class=_DeferredParser,
    )
    for command in commands:
        command.register(subparsers)
    return parser


# --------------------------------------------------------------------------- lazy loading
#
# ``--version``, ``--help`` and every other command must not pay for the
# imports of the one command that runs: a command module's implementation
# pulls in jsonschema, the writer, media libraries or dask. Two idioms, both
# here so no owner writes a third: :class:`LazyCommand` imports a command
# module only when its subcommand is parsed (or its help is shown), and
# :func:`lazy_handler` imports a handler's implementation only when it runs.

Handler = Callable[[argparse.Namespace], int]


def lazy_handler(module: str, name: str) -> Handler:
    """A handler that imports ``module`` and calls its ``name`` when invoked."""

    def handler(args: argparse.Namespace) -> int:
        implementation: Handler = getattr(importlib.import_module(module), name)
        return implementation(args)

    handler.__qualname__ = f"lazy({module}.{name})"
    return handler


def _help_columns() -> int:
    """The terminal width argparse's help formatter asks ``shutil.get_terminal_size`` for.

    The same rule ($COLUMNS, else the terminal on stdout, else 80) without
    importing shutil, which brings zlib, bz2 and lzma: 2 ms of every console
    script's start-up, and argparse makes a formatter for every argument added.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its help formatter as wide as argparse makes it (see above)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_help_columns() - 2)


class _DeferredParser(_Parser):
    """A subcommand parser built, and its arguments added, the first time it is used.

    argparse asks a subparser for nothing until its command is on the command
    line (``parse_known_args``) or its own help is printed; the top level's
    ``--help`` lists only the name and one-line help the parent already holds.
    So a :class:`LazyCommand`'s parser (``deferred=True``) keeps its options
    until then: building an ``ArgumentParser`` looks its default texts up in
    gettext's catalogs on disk, and ``rvault-db`` declares eighteen commands of
    which one runs. Any other use of a deferred parser builds it first.
    """

    _populate: Callable[[], None] | None = None
    _options: dict[str, Any] | None = None

    def __init__(self, *, deferred: bool = False, **options: Any) -> None:
        if deferred:
            self._options = options
        else:
            super().__init__(**options)

    def _build(self) -> None:
        options, self._options = self._options, None
        if options is not None:
            super().__init__(**options)

    def __getattr__(self, name: str) -> Any:
        # Only reached for an attribute the parser lacks: one not built yet builds now.
        if self._options is None:
            raise AttributeError(name)
        self._build()
        return getattr(self, name)

    def _ensure_populated(self) -> None:
        self._build()
        populate, self._populate = self._populate, None
        if populate is not None:
            populate()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._ensure_populated()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._ensure_populated()
        return super().format_help()

    def format_usage(self) -> str:
        self._ensure_populated()
        return super().format_usage()


# add_parser options a command module may pass that can be applied to a parser
# that already exists (everything else would have to be known at creation).
_LATE_OPTIONS = ("description", "epilog", "formatter_class", "usage")


class _Adopting:
    """The ``subparsers`` a lazily imported module registers into.

    ``add_parser(name, ...)`` returns the parser :class:`LazyCommand` already
    created under that name. The one-line help the module passes must be the
    one the console script declared, so ``--help`` never lists a stale text.
    """

    def __init__(self, module: str, parsers: Mapping[str, tuple[_DeferredParser, str]]) -> None:
        self._module = module
        self._parsers = parsers
        self.adopted: set[str] = set()

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        if name not in self._parsers:
            raise ValueError(f"{self._module} registers {name!r}, which its LazyCommand lacks")
        parser, declared_help = self._parsers[name]
        parser._build()
        if options.pop("help", declared_help) != declared_help:
            raise ValueError(f"{self._module} {name!r}: help differs from its LazyCommand's")
        for option in _LATE_OPTIONS:
            if option in options:
                setattr(parser, option, options.pop(option))
        if options:
            raise ValueError(f"{self._module} {name!r}: add_parser options {sorted(options)}")
        self.adopted.add(name)
        return parser


class LazyCommand:
    """A subcommand module named, not imported: its ``register`` runs on first use.

    ``commands`` maps each subcommand name the module registers to its one-line
    help (shown by the tool's ``--help`` without importing anything).
    """

    def __init__(self, module: str, commands: Mapping[str, str]) -> None:
        self.module = module
        self.commands = dict(commands)

    def register(self, subparsers: Any) -> None:
        parsers = {
            name: (subparsers.add_parser(name, help=text, deferred=True), text)
            for name, text in self.commands.items()
        }

        def populate() -> None:
            for parser, _text in parsers.values():
                parser._populate = None
            adopting = _Adopting(self.module, parsers)
            importlib.import_module(self.module).register(adopting)
            if missing := set(parsers) - adopting.adopted:
                raise ValueError(f"{self.module} does not register {sorted(missing)}")

        for parser, _text in parsers.values():
            if not isinstance(parser, _DeferredParser):
                raise TypeError("LazyCommand needs the subparsers of cli.build_parser")
            parser._populate = populate


def console_main(
    build_parser: Callable[[], Any],
    argv: list[str] | None = None,
    hint_table: Mapping[str, str] | None = None,
) -> int:
    """The entry point every owner console script delegates to.

    ``hint_table`` is the owner's code -> next action table: a refusal that
    names no ``hint`` of its own is printed with its code's (see
    :mod:`rvault_contracts.hints`).

    As a console script (``argv`` None), SIGTERM and SIGHUP unwind like
    Ctrl-C, so writers roll back, workers are killed and stdout still carries
    the ``interrupted`` document. Arguments that are not valid UTF-8 (they
    reach Python as surrogate escapes) are refused before anything runs: no
    JSON document could carry them, and failing only at the final emit would
    come after a finished write.
    """
    global _console_process
    if hint_table is not None:
        hints.register(hint_table)
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv is None:
            _console_process = True
            _install_unwinding()
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
    except KeyboardInterrupt:
        # A signal while the parser is built or the arguments parsed (outside
        # run's handler): still one ``interrupted`` document, never a traceback.
        return _interrupted()
    except SystemExit:
        _report_is_final()  # --help/--version printed: end quietly
        raise
    except BrokenPipeError:
        return _stdout_closed()


def _install_unwinding() -> None:
    """SIGTERM and SIGHUP unwind like Ctrl-C; all three wait out an extension's import.

    SIGINT is taken over only from Python's own ``default_int_handler`` (a
    shell that started the tool with SIGINT ignored keeps it ignored).
    """
    extension_imports.install()
    sys.unraisablehook = _unraisable
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _unwind)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _unwind)


def _stdout_closed() -> int:
    """The reader of stdout went away (``| head``): exit quietly, no traceback.

    stdout is pointed at /dev/null so the interpreter's final flush cannot
    raise a second time; the contract document was not delivered, so the
    exit status is the internal-error one.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return EXIT_INTERNAL
