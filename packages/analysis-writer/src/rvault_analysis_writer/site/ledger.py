"""The persisted evidence ledger, checked against its registered contract on read.

The tracking-db owner read assesses the database, but the outcome matrix,
canonical citations and inspection rows of an evidence ledger are
returns-persistence's contract. The site is a consumer of that contract, so
it validates every ledger it renders instead of drawing a table from
whatever is stored. Which contract a ledger has is ``write``'s decision
(:func:`rvault_analysis_writer.ledger_check.ledger_contract`); the site runs
the check inside its evidence workers (one talk per job) rather than in a
second pool, and legacy ledgers without a contract are shown as legacy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_contracts.schemas import schema_issues

from rvault_analysis_writer.ledger_check import MAX_ISSUES, ledger_contract


def ledger_issues(talk: Mapping[str, Any]) -> tuple[dict[str, str], ...]:
    """Schema problems of the talk's ledger (empty when valid or without a contract)."""
    contract = ledger_contract(talk)
    if contract is None:
        return ()
    artifact, version = contract
    return tuple(
        {
            "path": f'$["pattern_observations"]{issue.path.removeprefix("$")}',
            "message": issue.message,
        }
        for issue in schema_issues(artifact, version, talk["pattern_observations"])[:MAX_ISSUES]
    )
