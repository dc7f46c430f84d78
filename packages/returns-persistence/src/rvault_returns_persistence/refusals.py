"""Refusals that always say what to do next.

Every ``cli-failure`` this package prints carries a ``hint``. Call sites that
know a better next step pass their own; the classes here supply the default
of their family, so no refusal reaches a user without one.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.cli import Refusal


class HintedRefusal(Refusal):
    """A refusal whose family supplies a default ``hint``."""

    HINT = "fix the input named by path, then run the command again"

    def __init__(self, code: str, message: str, path: str | None = None, **context: Any) -> None:
        context.setdefault("hint", self.HINT)
        super().__init__(code, message, path, **context)
