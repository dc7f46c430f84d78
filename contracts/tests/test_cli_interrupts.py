"""Where a console script's interrupt handler cannot simply raise.

A signal during a C extension's import waits until the extension is whole.

The console script imports ``_decimal`` (a C extension whose init imports
``numbers`` and ``collections`` from C) with a meta-path finder that raises
SIGTERM the first time it is consulted during that init: exactly the
moment a real SIGTERM hit orjson's init in the start-up sweep
(``reliability/test_startup_signals.py``) and crashed the process. The
handler must defer it there and deliver it once the import is done.

A signal whose exception Python swallows (raised inside a ``__del__``) is
raised again at the next safe point, so the command does not report as if
no signal had come.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_SCRIPT = """
import argparse, json, signal, sys
from rvault_contracts import cli, extension_imports

seen = {}

class SignalDuringInit:
    def find_spec(self, name, path=None, target=None):
        if "initialising" not in seen and extension_imports.initialising():
            seen["initialising"] = name
            signal.raise_signal(getattr(signal, sys.argv[1]))  # the handler runs in here
            seen["returned"] = True  # the handler deferred instead of raising
        return None

def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("signal")
    def handler(args):
        for name in [m for m in sys.modules if m in ("numbers", "_decimal")]:
            del sys.modules[name]
        sys.meta_path.insert(0, SignalDuringInit())
        try:
            import _decimal
        finally:
            sys.stderr.write(json.dumps(seen))
        seen["after_import"] = True
        return cli.EXIT_OK
    parser.set_defaults(handler=handler)
    return parser

sys.exit(cli.console_main(build))
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_signal_during_an_extension_import_is_delivered_after_it(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, name], capture_output=True, text=True, check=False
    )
    seen = json.loads(done.stderr)
    assert seen == {"initialising": seen["initialising"], "returned": True}, done.stderr
    assert done.returncode == 130, done.stderr
    document = json.loads(done.stdout)
    assert document["error"]["code"] == "interrupted" and document["hint"]


def test_library_use_leaves_the_extension_loader_alone() -> None:
    """Only a console process guards the loader; importing the runner changes nothing."""
    probe = (
        "import importlib.machinery as m, rvault_contracts.cli; "
        "print(m.ExtensionFileLoader.exec_module.__qualname__)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ExtensionFileLoader.exec_module"


_SWALLOWED = """
import argparse, signal, sys
from rvault_contracts import cli

class Finalised:
    def __del__(self):
        signal.raise_signal(signal.SIGTERM)  # the handler raises in here; Python swallows it

def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("then", choices=["report", "write"])
    def handler(args):
        Finalised()
        sys.stderr.write("went on;")
        if args.then == "write":
            cli.raise_if_interrupted()  # what every writer calls before touching anything
            sys.stderr.write("wrote;")
        cli.emit({"ok": True})
        return cli.EXIT_OK
    parser.set_defaults(handler=handler)
    return parser

sys.exit(cli.console_main(build))
"""


@pytest.mark.parametrize("then", ["report", "write"])
def test_an_interrupt_swallowed_by_a_finaliser_is_raised_at_the_next_safe_point(
    then: str,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SWALLOWED, then], capture_output=True, text=True, check=False
    )
    assert done.stderr == "went on;", done.stderr  # swallowed, yet no "Exception ignored"
    assert done.returncode == 130
    document = json.loads(done.stdout)
    assert document["error"]["code"] == "interrupted" and document["hint"]
