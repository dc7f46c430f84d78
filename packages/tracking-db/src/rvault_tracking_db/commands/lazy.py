"""Handlers imported on first use.

``rvault-db read`` is a hot path for agents (a 10,000-talk vault must read in
about a second), so the parser of every command is built up front but each
command's implementation (queue planning, shownotes parsing with YAML/TOML)
is imported only when that command runs: about 50 ms less startup.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def lazy_handler(module: str, name: str) -> Handler:
    """A handler that imports ``module`` and calls its ``name`` when invoked."""

    def handler(args: argparse.Namespace) -> int:
        implementation: Handler = getattr(importlib.import_module(module), name)
        return implementation(args)

    handler.__qualname__ = f"lazy({module}.{name})"
    return handler
