"""Errors as values with stable codes.

Library code raises :class:`VideoExtractionError`; the CLI turns it into the
``cli-failure`` refusal (exit 2). Keeping it independent of the CLI module lets
the light ``api`` reuse the same codes without importing argparse plumbing.
"""

from __future__ import annotations


class VideoExtractionError(Exception):
    """A refused input or failed precondition with a stable ``code``."""

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path
