"""What a queue command decided as the read streamed the talks, and its candidate's bytes.

``queue claim`` and ``queue recover`` change a few talks and decide after the
last one; both keep the decision (or its refusal, raised later by the
command's planner after the session's checks) and the bytes of the changed
talks assessed like :func:`~.store.candidate_bytes` and spliced into the
input by :class:`~.splice.StreamedSplice`. This is that step once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector, Issue

from rvault_tracking_db.queue import store
from rvault_tracking_db.queue.splice import StreamedSplice


class Changes(Protocol):
    """An outcome's changed talks: their indices, ascending, and their new values."""

    changed: list[int]
    updated: dict[int, dict[str, Any]]


Outcome = TypeVar("Outcome")
Changed = TypeVar("Changed", bound=Changes)


@dataclass
class StreamedPlan(Generic[Outcome]):
    """The outcome or the refusal, and the bytes.

    ``planned``: the candidate's bytes (None: nothing changes); ``invalid``:
    the owner's fatal findings on the changed talks (``candidate_invalid``).
    """

    outcome: Outcome | None
    refusal: Refusal | None
    planned: bytes | None = None
    invalid: tuple[Issue, ...] = ()

    def decided(self) -> Outcome:
        """The outcome, or the refusal raised (as the view raised it)."""
        if self.refusal is not None:
            raise self.refusal
        assert self.outcome is not None
        return self.outcome

    def candidate(self) -> bytes | None:
        if self.invalid:
            raise store.invalid_candidate(self.invalid)
        return self.planned


def spliced(
    outcome: Changed, data: bytes, kept: Mapping[int, Any], count: int, root_version: int | None
) -> StreamedPlan[Changed] | None:
    """``outcome``'s changed talks assessed (at ``root_version``) and spliced into ``data``
    (``count`` talks; ``kept``: their old values); None where the splice gives None."""
    findings = Collector()
    for index in outcome.changed:
        store.assess_changed_talk(outcome.updated[index], index, findings, root_version)
    if findings.errors:
        return StreamedPlan(outcome, None, None, tuple(findings.errors))
    splice = StreamedSplice(data)
    for index in outcome.changed:
        splice.replace(index, kept[index], outcome.updated[index])
    planned = splice.finish(count)
    return None if planned is None else StreamedPlan(outcome, None, planned)
