"""The one error value every owner raises: a refusal with a stable code.

Light on purpose (no argparse, no I/O, nothing beyond the standard library's
typing): a reader, a probe or a worker raises :class:`Refusal` without
importing the command-line machinery, and ``rvault_contracts.cli`` (which
re-exports both names) maps it to exit 2 and the ``cli-failure`` v1
document. An owner subclasses it rather than restating ``(code, message,
path)`` in an exception of its own.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not loaded at start-up: the annotations alone name Any
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Refusal", "failure_document"]


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
    """The ``cli-failure`` v1 document: ``context`` keys plus ``ok: false`` and ``error``."""
    document: dict[str, Any] = dict(context)
    document["ok"] = False
    document["error"] = {"code": code, "message": message, "path": path}
    return document
