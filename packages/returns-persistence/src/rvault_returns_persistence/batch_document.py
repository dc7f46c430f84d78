"""The shapes a batch of worker returns may take, and one member's return in it.

A batch is an array of returns, one return object, or an object keyed by
filename; everything else is refused before any return is read
(``batch_invalid`` at ``$``). Both ``validate`` and ``persist`` walk a batch
through :func:`iter_batch`, so they agree on every return's JSON path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.refusals import HintedRefusal

BatchItem = tuple[str, str | None, Any]  # (JSON path, object key, return)


class BatchShapeError(HintedRefusal):
    """The document is not a batch of returns (a ``cli-failure`` refusal at ``$``)."""

    HINT = "pass an array of returns, one return object, or an object keyed by filename"


def iter_batch(document: Any) -> Iterator[BatchItem]:
    """(JSON path, object key, return) for an array, one return, or an object keyed by filename."""
    if isinstance(document, list):
        for index, item in enumerate(document):
            yield child("$", index), None, item
    elif isinstance(document, dict) and "filename" in document:
        yield "$", None, document
    elif isinstance(document, dict):
        for key, item in document.items():
            yield child("$", key), key, item
    else:
        raise BatchShapeError(
            "batch_invalid", "the batch is an array of returns or an object of returns", "$"
        )


def member_returns(document: Any, member: str) -> list[BatchItem]:
    """The one member's return(s) of a document (a lone return or a whole batch)."""
    chosen = [
        item
        for item in iter_batch(document)
        if isinstance(item[2], dict) and item[2].get("filename") == member
    ]
    if not chosen:
        raise Refusal(
            "member_not_found",
            f"the returns hold no return for {member!r}",
            "$",
            hint="pass the filename of the talk this return is for (its `filename` field)",
        )
    return chosen
