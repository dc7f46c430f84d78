"""Matching proposed sources against a talk's ``source_rejections`` ledger.

A proposed URL matches a rejection when it is the exact stored URL or when
its parsed provider ID equals the rejected URL's provider ID. The capability
resolver (an "active" remote source is one that no rejection matches) and the
shownotes scanner (``rejected_source_reappeared``) both use this one rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rvault_tracking_db.ids import provider_id


@dataclass(frozen=True)
class RejectionMatch:
    record: Mapping[str, Any]
    method: str  # "exact_url" | "provider_id"
    candidate_url: str
    candidate_provider_id: str | None
    rejected_provider_id: str | None


def match_rejection(
    source_type: str, url: str, rejections: Iterable[Any] | None
) -> RejectionMatch | None:
    """The first ledger record that rejects ``url`` for ``source_type``, if any."""
    if not rejections:
        return None
    candidate_pid = provider_id(source_type, url)
    provider_hit: RejectionMatch | None = None
    for record in rejections:
        if not isinstance(record, Mapping) or record.get("source_type") != source_type:
            continue
        stored = record.get("url")
        if not isinstance(stored, str):
            continue
        stored_pid = provider_id(source_type, stored)
        if stored == url:
            return RejectionMatch(record, "exact_url", url, candidate_pid, stored_pid)
        if provider_hit is None and candidate_pid is not None and stored_pid == candidate_pid:
            provider_hit = RejectionMatch(record, "provider_id", url, candidate_pid, stored_pid)
    return provider_hit
