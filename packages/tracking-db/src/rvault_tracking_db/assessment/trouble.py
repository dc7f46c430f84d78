"""Per-talk evidence trouble: the assessment's warnings, grouped by the talk they name.

The read refuses a database only for fatal issues; a warning at
``$["talks"][N]...`` belongs to talk N alone. Status shows those warnings on
the talk's row, and the codes in :data:`REQUEUE_REASONS` make an analysed
talk's analysis unusable: ``queue normalize`` requeues it with the reason
that code names. Besides the read's warnings there is one per-talk finding
the read cannot make (it opens no file): a persisted evidence identity the
bytes no longer have (``evidence_identity_stale``, :mod:`..evidence_identity`),
which status and normalize add to the talk's trouble.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment.ledger import LEDGER_SCHEMA_VIOLATION
from rvault_tracking_db.evidence_identity import EVIDENCE_IDENTITY_STALE

#: warnings after which a talk's persisted analysis is no usable prior state, each with
#: the ``reprocess_reason`` its requeue records (first match wins: a broken ledger first)
REQUEUE_REASONS = {
    LEDGER_SCHEMA_VIOLATION: "evidence_ledger_invalid",
    EVIDENCE_IDENTITY_STALE: EVIDENCE_IDENTITY_STALE,
}
REQUEUE_CODES = frozenset(REQUEUE_REASONS)

_TALK_PATH = re.compile(r'^\$\["talks"\]\[(\d+)\]')


def by_talk(warnings: Iterable[Issue]) -> dict[int, list[Issue]]:
    """Each talk index with the warnings whose JSON path lies inside that talk."""
    grouped: dict[int, list[Issue]] = {}
    for issue in warnings:
        match = _TALK_PATH.match(issue.path)
        if match is not None:
            grouped.setdefault(int(match.group(1)), []).append(issue)
    return grouped


def needs_requeue(issues: Iterable[Issue]) -> bool:
    return requeue_reason(issues) is not None


def requeue_reason(issues: Iterable[Issue]) -> str | None:
    """The ``reprocess_reason`` of the first requeue code among ``issues`` (None: none)."""
    codes = {issue.code for issue in issues}
    return next((reason for code, reason in REQUEUE_REASONS.items() if code in codes), None)


def merge(*groups: Mapping[int, list[Issue]]) -> dict[int, list[Issue]]:
    """Per-talk issue lists from several sources, one list per talk index."""
    merged: dict[int, list[Issue]] = {}
    for group in groups:
        for position, issues in group.items():
            merged.setdefault(position, []).extend(issues)
    return merged
