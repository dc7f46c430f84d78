"""Per-talk evidence trouble: the assessment's warnings, grouped by the talk they name.

The read refuses a database only for fatal issues; a warning at
``$["talks"][N]...`` belongs to talk N alone. Status shows those warnings on
the talk's row, and the codes in :data:`REQUEUE_CODES` make an analysed
talk's analysis unusable: ``queue normalize`` requeues it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment.ledger import LEDGER_SCHEMA_VIOLATION

#: warnings after which a talk's persisted analysis is no usable prior state
REQUEUE_CODES = frozenset({LEDGER_SCHEMA_VIOLATION})
REQUEUE_REASON = "evidence_ledger_invalid"

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
    return any(issue.code in REQUEUE_CODES for issue in issues)
