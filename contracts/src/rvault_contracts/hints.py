"""The next action for every refusal code, looked up by code when a refusal names none.

The README promises a ``hint`` on every exit 2. A call site that knows a
better next step passes ``hint=`` itself; everything else gets the default of
its code from here: :data:`DEFAULT_HINTS` for the codes ``rvault_contracts``
emits in every tool (CLI, strict JSON, writer; declared in
:mod:`rvault_contracts.codes`), and each owner's ``HINTS`` table (its
``codes`` module's declared hints), registered by its console script
(:func:`register`). Looking the hint
up by code at the one place a document reaches stdout (``cli.emit``) covers a
code however it travelled there: raised directly, or raised as an owner's
coded error and re-raised as a refusal. ``tools/tests/test_refusal_hints.py``
fails on a declared refusal code without a hint whose call site names none.

Only a failure document needs a hint, so the tables are :class:`LazyHints`:
a console script's ``--version``, ``--help`` and a command that succeeds never
import the declarations (``dataclasses`` and a few hundred ``Code`` values,
about a third of a console script's start-up).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LazyHints(Mapping[str, str]):
    """The code -> hint table ``module.HINTS``, imported on its first lookup."""

    def __init__(self, module: str) -> None:
        self.module = module
        self._table: Mapping[str, str] | None = None

    def _loaded(self) -> Mapping[str, str]:
        if self._table is None:
            self._table = importlib.import_module(self.module).HINTS
        return self._table

    def __getitem__(self, code: str) -> str:
        return self._loaded()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


# The codes every tool shares, with their hints, are declared in ``rvault_contracts.codes``.
DEFAULT_HINTS: Mapping[str, str] = LazyHints("rvault_contracts.codes")

_registered: Mapping[str, str] = {}


def register(hints: Mapping[str, str]) -> None:
    """Make ``hints`` the running owner's code -> hint table (its console script calls this
    before parsing; a later tool run in the same process replaces it). Kept as given, so a
    :class:`LazyHints` is imported only when a refusal needs it."""
    global _registered
    _registered = hints


def load_tables() -> None:
    """Import the registered and the shared hint tables now.

    A command can be refused because the file system fails it (EROFS, EIO,
    a full disk): importing a table only then would read a module from that
    file system and turn the refusal into a traceback. ``cli.run`` calls this
    before a handler starts, so ``--help``, ``--version`` and parsing stay light.
    """
    for table in (_registered, DEFAULT_HINTS):
        if isinstance(table, LazyHints):
            table._loaded()


def hint_for(code: str) -> str | None:
    """The owner's hint for ``code``, else the shared default, else None."""
    return _registered.get(code) or DEFAULT_HINTS.get(code)


def with_hint(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the default ``hint`` of its code when it is a failure without one."""
    error = document.get("error")
    if document.get("ok") is not False or "hint" in document or not isinstance(error, dict):
        return document
    hint = hint_for(str(error.get("code", "")))
    return document if hint is None else {**document, "hint": hint}
