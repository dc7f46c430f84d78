"""An interrupt waits until the C extension module being imported has finished initialising.

A console script turns SIGINT, SIGTERM and SIGHUP into ``KeyboardInterrupt``
(:mod:`rvault_contracts.cli`), raised by the Python handler at the next
bytecode the main thread runs. While a C extension initialises, that bytecode
may belong to a module the extension imports from C (orjson's init imports
``datetime``, ``uuid``, ``enum``, ...). Extensions check such results
unevenly: orjson does not, and a ``KeyboardInterrupt`` raised there leaves it
with a NULL it dereferences, so SIGTERM at one of those syscalls ended
``rvault-batch plan`` with SIGSEGV and no JSON instead of ``interrupted``.

So, in a console process, the file-extension loader's two entry points
(``create_module`` runs a single-phase ``PyInit``, ``exec_module`` a
multi-phase one) count their depth on the main thread; the handler asks
:func:`initialising` and, while one runs, :func:`defer`s the signal instead of
raising. When the outermost extension has finished, the deferred signal goes
to the handler in force then (``KeyboardInterrupt`` from the import
statement, after the extension is whole; a writer's recording handler
records it; an ignored one drops it). Extension imports are a few per
command, so the cost is two Python calls each; pure-Python imports are
untouched (an exception there unwinds cleanly).
"""

from __future__ import annotations

import importlib.machinery
import signal
import threading
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not loaded at start-up: the annotations alone name Any
if TYPE_CHECKING:
    from typing import Any

_GUARD_MARK = "_rvault_interrupt_guard"
_depth = 0
_deferred: list[int] = []


def initialising() -> bool:
    """True while the main thread is inside a C extension's initialisation."""
    return _depth > 0


def defer(signum: int) -> None:
    """Hold ``signum`` until the outermost extension import has finished."""
    _deferred.append(signum)


def install() -> None:
    """Guard the file-extension loader (idempotent; console processes only)."""
    loader = importlib.machinery.ExtensionFileLoader
    for name in ("create_module", "exec_module"):
        method = getattr(loader, name)
        if not getattr(method, _GUARD_MARK, False):
            setattr(loader, name, _guarded(method))


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(self: Any, *args: Any) -> Any:
        global _depth
        if threading.current_thread() is not threading.main_thread():
            return method(self, *args)  # Python runs signal handlers on the main thread only
        _depth += 1
        try:
            return method(self, *args)
        finally:
            _depth -= 1
            if _depth == 0 and _deferred:
                _deliver()

    setattr(guarded, _GUARD_MARK, True)
    guarded.__qualname__ = f"interrupt_guarded({method.__qualname__})"
    return guarded


def _deliver() -> None:
    """Hand each deferred signal, once, to the handler now installed for it."""
    pending = list(dict.fromkeys(_deferred))
    _deferred.clear()
    for signum in pending:
        handler = signal.getsignal(signum)
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            signal.raise_signal(signum)
