"""``rvault-db queue normalize`` planned while the read streams the talks.

Normalize may change every talk (each one's capabilities are derived), yet
what it writes is the input with the changed talks' blocks replaced, and
what it reports is a few small values per talk. The whole read, the plan's
candidate tree and its encoding held about 7x the file at 10,000 realistic
talks. So the session reads with :meth:`StreamedNormalize.read`
(:func:`~rvault_tracking_db.streamed_read.stream_or_read`): where the
bytes are proven to be a writer's layout, each talk,
right after the owner's talk loop assessed it, is normalized by the very
function :func:`~rvault_tracking_db.queue.normalize.plan_normalize` loops
over, with the same trouble (its warnings, then its stale identities); a
changed talk is assessed as :func:`~rvault_tracking_db.queue.store.candidate_bytes`
assesses changed talks, and handed, old and new, to
:class:`~rvault_tracking_db.queue.splice.StreamedSplice`, which writes the
output as it goes. Then the talk is dropped.

The composition checks what it relies on: each talk's warnings are its own
and add up to the read's warnings grouped by talk, no step raised, and the
splice gives :func:`~rvault_tracking_db.queue.splice.splice`'s answer. Any
of that failing, or a layout the stream cannot prove, sends the bytes to
the whole read and the command plans as it did before. Refusals
are the read's own, and the write is the session's one install.
``tests/test_queue_normalize_stream.py`` runs the command both ways.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Collector, Issue

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.assessment.trouble import by_talk
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.evidence import deck_catalog
from rvault_tracking_db.evidence_identity import IdentityCheck
from rvault_tracking_db.queue import normalize as plans
from rvault_tracking_db.queue import store
from rvault_tracking_db.queue.splice import StreamedSplice
from rvault_tracking_db.queue.streamed_plan import StreamedPlan
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.streamed_read import Guard, stream_or_read
from rvault_tracking_db.verified_read import TalkHook

NormalizePlan = StreamedPlan[plans.NormalizeOutcome]
"""What the streamed read planned: the outcome (no candidate tree) and its bytes."""


class StreamedNormalize:
    """The session's read for normalize; :attr:`plan` is set when the stream planned it."""

    def __init__(self) -> None:
        self.plan: NormalizePlan | None = None

    def read(self, path: str | os.PathLike[str]) -> ReadResult:
        """``read_database(path)``'s refusals; a result without the tree when it planned.

        ``database`` is None then (the talks are gone); otherwise the whole read's.
        """
        result, self.plan = stream_or_read(path, _planner)
        return result


def _planner(database_path: str, data: bytes) -> _TalkPlanner:
    return _TalkPlanner(Path(database_path).parent, data)


class _TalkPlanner:
    """The hook the stream shows each assessed talk to, and the plan it adds up to."""

    def __init__(self, vault_root: Path, data: bytes) -> None:
        self._vault_root = vault_root
        self._outcome = plans.NormalizeOutcome(None)
        self._splice = StreamedSplice(data)
        self._invalid: list[Issue] = []  # the changed talks' fatal findings
        self._trouble: dict[int, list[Issue]] = {}
        self._count = 0
        self._watched = False
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> TalkHook:
        self._guard.run(self._start, members)
        return self._add

    def _start(self, members: dict[str, Any]) -> None:
        self._roots = SourceRoots.from_config(self._vault_root, members.get("config"))
        self._check = IdentityCheck(self._roots)
        self._catalog = deck_catalog(members)
        self._watched = True

    def _add(self, index: int, talk: Any, found: Sequence[Issue]) -> None:
        self._count += 1
        if self._guard.failed:
            return
        grouped = by_talk(found)
        if set(grouped) - {index}:
            self._guard.failed = True  # a warning about another talk: the plan would miss it
            return
        self._trouble.update(grouped)
        self._guard.run(self._plan, index, talk, grouped.get(index, []))

    def _plan(self, index: int, talk: Any, warnings: list[Issue]) -> None:
        """The talk normalized with ``plan_normalize``'s trouble; a change assessed and spliced."""
        stale = plans.talk_identity_trouble(self._check, self._catalog, index, talk)
        updated = plans.normalize_talk(self._outcome, index, talk, self._roots, warnings + stale)
        if updated is None:
            return
        findings = Collector()
        # normalize runs only on a schema-1 root (require_current_root refuses the rest)
        store.assess_changed_talk(updated, index, findings, 1)
        self._invalid.extend(findings.errors)
        if not self._invalid:
            self._splice.replace(index, talk, updated)

    def finish(self, assessment: Assessment) -> NormalizePlan | None:
        """The plan, or None when it may differ from the whole read's (see the module)."""
        if self._guard.failed or not self._watched:
            return None
        if by_talk(assessment.warnings) != self._trouble:
            return None
        if assessment.root_version != 1:
            # refused before any plan is used (the session's require_current_root)
            return NormalizePlan(plans.NormalizeOutcome(None), None)
        outcome = self._outcome
        if not outcome.changes:
            return NormalizePlan(outcome, None)
        if self._invalid:
            return NormalizePlan(outcome, None, None, tuple(self._invalid))
        planned = self._splice.finish(self._count)
        return None if planned is None else NormalizePlan(outcome, None, planned)
