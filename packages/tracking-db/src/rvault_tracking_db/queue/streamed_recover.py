"""``rvault-db queue recover`` planned while the read streams the talks.

A recovery changes the few talks of one batch, but its refusals read every
talk's claims (``batch_not_found``, ``batch_already_closed``,
``mixed_batch``). :class:`~.recover.RecoverView` keeps just the batch's
claims and, whole, the talks holding a live member, and
:func:`~.recover.plan_recover` decides on the same view, so the two ways
cannot differ. The session reads with :meth:`StreamedRecover.read`
(:func:`~rvault_tracking_db.streamed_read.stream_or_read`): where the bytes
are proven to be a writer's layout, each talk goes to the view right after
the owner's talk loop assessed it and is dropped unless the view kept it.

After the last talk the recovery is decided; a refusal it raises is kept
and raised by the command's planner, after the session's own checks. The
recovered talks are assessed as :func:`~.store.candidate_bytes` assesses
changed talks (at the read's root version: recovery runs on schema 0 too)
and spliced into the input by :class:`~.splice.StreamedSplice`. A step that
raised or a splice that gives None sends the bytes to the whole read, and the
command plans on the tree as before. ``tests/test_queue_recover_stream.py``
runs the command both ways.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.queue.recover import RecoverOutcome, RecoverView
from rvault_tracking_db.queue.streamed_plan import StreamedPlan, spliced
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.streamed_read import Guard, stream_or_read

StreamedRecoverPlan = StreamedPlan[RecoverOutcome]
"""What the streamed read decided: the recovery or its refusal, and the bytes."""


class StreamedRecover:
    """The session's read for a recovery; :attr:`plan` is set when the stream decided it."""

    def __init__(self, run_id: str, batch_id: str, released_at: str) -> None:
        self._batch = (run_id, batch_id)
        self._released_at = released_at
        self.plan: StreamedRecoverPlan | None = None

    def read(self, path: str | os.PathLike[str]) -> ReadResult:
        """``read_database(path)``'s refusals; a result without the tree when it planned."""
        result, self.plan = stream_or_read(path, self._planner)
        return result

    def _planner(self, _database_path: str, data: bytes) -> _TalkPlanner:
        return _TalkPlanner(RecoverView(*self._batch), self._released_at, data)


class _TalkPlanner:
    """The hook the stream shows each assessed talk to, and the recovery it adds up to."""

    def __init__(self, view: RecoverView, released_at: str, data: bytes) -> None:
        self._view = view
        self._released_at = released_at
        self._data = data
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> Callable[[int, Any, Any], None]:
        return self._add

    def _add(self, index: int, talk: Any, found: Any) -> None:
        self._guard.run(self._view.add, index, talk)

    def finish(self, assessment: Assessment) -> StreamedRecoverPlan | None:
        """The recovery decided, or None when the whole read must decide it (see the module)."""
        if self._guard.failed:
            return None
        view = self._view
        try:
            outcome = view.plan(self._released_at)
        except Refusal as refusal:
            return StreamedRecoverPlan(None, refusal)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            return None
        return spliced(outcome, self._data, view.kept, view.count, assessment.root_version)
