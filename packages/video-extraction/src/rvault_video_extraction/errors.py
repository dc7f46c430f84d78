"""Errors as values with stable codes.

Library code raises :class:`VideoExtractionError`; the CLI turns it into the
``cli-failure`` refusal (exit 2). Keeping it independent of the CLI module lets
the light ``api`` reuse the same codes without importing argparse plumbing.
"""

from __future__ import annotations


class VideoExtractionError(Exception):
    """A refused input or failed precondition with a stable ``code``.

    ``hint`` names the next action when the message alone does not.
    """

    def __init__(
        self, code: str, message: str, path: str | None = None, *, hint: str | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path
        self.hint = hint

    def refusal_context(self) -> dict[str, str]:
        """Extra keys of the ``cli-failure`` document (the hint, when there is one)."""
        return {} if self.hint is None else {"hint": self.hint}
