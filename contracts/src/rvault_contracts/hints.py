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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_contracts.codes import SHARED

# The codes every tool shares, with their hints, are declared in ``rvault_contracts.codes``.
DEFAULT_HINTS: dict[str, str] = SHARED.hints()

_registered: dict[str, str] = {}


def register(hints: Mapping[str, str]) -> None:
    """Make ``hints`` the running owner's code -> hint table (its console script calls this
    before parsing; a later tool run in the same process replaces it)."""
    _registered.clear()
    _registered.update(hints)


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
