"""``set_talk_status``: the queue-state repairs the source-repair contract allows.

Only two kinds of change, each state-bound:

- into a terminal skip (``skipped_no_sources``, ``skipped_download_failed``,
  ``skipped_duplicate``), when the talk as the plan has left it satisfies that
  skip's rule (the shared :func:`~rvault_tracking_db.terminal.terminal_skip_issues`
  over the resolver's live capabilities: a duplicate needs its
  ``source_relation`` first, in the same plan);
- out of a terminal skip back to ``pending`` (the skip was wrong).

An analysed or claimed talk's status belongs to the queue and persistence
writers, never to a repair plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.capabilities import SourceRoots, resolve
from rvault_tracking_db.terminal import TERMINAL_SKIP_STATUSES, terminal_skip_issues

UNSKIP = "pending"
_FROM_INTO_SKIP = frozenset({"pending", "needs-reprocessing", *TERMINAL_SKIP_STATUSES})


def check_status_value(talk: Mapping[str, Any], value: str, roots: SourceRoots, where: str) -> None:
    current = talk.get("status")
    if value == UNSKIP:
        if current not in TERMINAL_SKIP_STATUSES:
            raise Refusal(
                "status_repair_not_allowed",
                f"only a terminal skip goes back to pending through a repair, not {current!r}",
                where,
                hint="requeue an analysed talk with `rvault-db queue DB normalize`",
            )
        return
    if current not in _FROM_INTO_SKIP:
        raise Refusal(
            "status_repair_not_allowed",
            f"a {current!r} talk's status belongs to the queue and persistence writers",
            where,
            hint="repair its sources instead; an analysed talk is requeued by the lanes",
        )
    issues = terminal_skip_issues(value, talk, resolve(talk, roots).capabilities)
    if issues:
        raise Refusal(
            "terminal_skip_contradicted",
            f"{value} is contradicted by the talk's state: {issues[0]['message']}",
            where,
            issues=issues,
            hint="set source_relation (duplicate) or remove the sources first, in the same plan",
        )
