"""Catalog feedback for the talk pages, read from the returns the caller passes.

``catalog_feedback`` is intentionally not stored on the talk: it lives only
in the worker's return. ``site --returns RETURNS.json`` (repeatable, one per
batch) reads each batch file exactly as ``write`` does, and a return's
feedback is shown on a talk page only when the return's canonical hash is
the ``result_payload_sha256`` of the talk's completed claim: the receipt
``write`` renders the Markdown under. A return that matches no receipt is
reported by count and never shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import payload_sha256

from rvault_analysis_writer.authorize import returns_of
from rvault_analysis_writer.write import read_returns


@dataclass(frozen=True)
class Feedback:
    by_receipt: dict[str, Mapping[str, Any]]
    """Receipt digest -> the return's ``catalog_feedback``."""
    returns: int

    def for_receipt(self, digest: str | None) -> Mapping[str, Any] | None:
        return self.by_receipt.get(digest) if digest is not None else None


def read_feedback(paths: Iterable[Path]) -> Feedback:
    """Every return of every batch file by its receipt digest (refusals as ``write``'s)."""
    found: dict[str, Mapping[str, Any]] = {}
    count = 0
    for path in paths:
        for ret in returns_of(read_returns(path)):
            count += 1
            lanes = ret.get("catalog_feedback")
            if isinstance(lanes, Mapping):
                found[payload_sha256(ret)] = lanes
    return Feedback(found, count)
