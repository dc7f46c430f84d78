"""The persisted evidence ledger, checked against its registered contract on read.

The tracking-db owner read assesses the database, but the outcome matrix,
canonical citations and inspection rows of evidence ledger v2 are
returns-persistence's contract (``pattern-observations`` v2). The site is a
consumer of that contract, so it validates every v2 ledger it renders
instead of drawing a table from whatever is stored; legacy ledgers (no
``evidence_schema_version``) have no schema and are shown as legacy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_contracts.schemas import schema_issues

ARTIFACT = "pattern-observations"
VERSION = 2


def ledger_issues(talk: Mapping[str, Any]) -> tuple[dict[str, str], ...]:
    """Schema problems of the talk's ledger v2 (empty when valid, legacy or absent)."""
    ledger = talk.get("pattern_observations")
    if not isinstance(ledger, Mapping) or ledger.get("evidence_schema_version") != VERSION:
        return ()
    return tuple(
        {
            "path": f'$["pattern_observations"]{issue.path.removeprefix("$")}',
            "message": issue.message,
        }
        for issue in schema_issues(ARTIFACT, VERSION, ledger)
    )
