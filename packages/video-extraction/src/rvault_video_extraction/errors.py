"""Errors as values with stable codes.

Library code raises :class:`VideoExtractionError`, a
:class:`rvault_contracts.errors.Refusal`: the CLI prints it as the
``cli-failure`` refusal (exit 2) with no conversion in the command modules.
``rvault_contracts.errors`` is light (no argparse), so the ``api`` readers
reuse the same codes without the command-line machinery.
"""

from __future__ import annotations

from rvault_contracts.errors import Refusal


class VideoExtractionError(Refusal):
    """A refused input or failed precondition with a stable ``code``.

    ``hint`` names the next action when the message alone does not; it is
    the refusal document's ``hint`` key.
    """

    def __init__(
        self, code: str, message: str, path: str | None = None, *, hint: str | None = None
    ) -> None:
        super().__init__(code, message, path, **({} if hint is None else {"hint": hint}))
        self.hint = hint
