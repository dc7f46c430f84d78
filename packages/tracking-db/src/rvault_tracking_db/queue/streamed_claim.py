"""``rvault-db queue claim`` planned while the read streams the talks.

A claim changes a handful of talks, but its decision reads every one: the
batch's claims (replay, epochs), the filenames (selection, the closest-name
hint), the catalog fingerprint the current talks name and each talk's part
of the baseline. :class:`~.claim.ClaimView` keeps just that per talk, and
:func:`~.claim.plan_claim` decides on the same view, so the two ways cannot
differ. The session reads with :meth:`StreamedClaim.read`
(:func:`~rvault_tracking_db.streamed_read.stream_or_read`): where the bytes are proven to be a
writer's layout, each talk goes to the view right after the owner's talk
loop assessed it and is dropped, unless the claim may change it.

After the last talk the claim is decided; a refusal it raises is kept, and
raised by the command's planner, after the session's own checks (a legacy
root is refused first, as on the whole read). The claimed talks are assessed
as :func:`~.store.candidate_bytes` assesses changed talks and spliced into
the input by :class:`~.splice.StreamedSplice`. A repeated filename (the
``--limit`` selection took the index as it stood), a step that raised or a
splice that gives None sends the bytes to the whole read, and the command
plans on the tree as before. ``tests/test_queue_claim_stream.py`` runs the
command both ways.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.queue.claim import ClaimOutcome, ClaimRequest, ClaimView
from rvault_tracking_db.queue.streamed_plan import StreamedPlan, spliced
from rvault_tracking_db.reader import ReadResult
from rvault_tracking_db.streamed_read import Guard, stream_or_read

StreamedClaimPlan = StreamedPlan[ClaimOutcome]
"""What the streamed read decided: the claim or its refusal, and the bytes."""


class StreamedClaim:
    """The session's read for a claim; :attr:`plan` is set when the stream decided it."""

    def __init__(self, request: ClaimRequest) -> None:
        self.request = request
        self.plan: StreamedClaimPlan | None = None

    def read(self, path: str | os.PathLike[str]) -> ReadResult:
        """``read_database(path)``'s refusals; a result without the tree when it planned."""
        result, self.plan = stream_or_read(path, self._planner)
        return result

    def _planner(self, database_path: str, data: bytes) -> _TalkPlanner:
        return _TalkPlanner(self.request, Path(database_path).parent, data)


class _TalkPlanner:
    """The hook the stream shows each assessed talk to, and the claim it adds up to."""

    def __init__(self, request: ClaimRequest, vault_root: Path, data: bytes) -> None:
        self._request = request
        self._vault_root = vault_root
        self._data = data
        self._view: ClaimView | None = None
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> Callable[[int, Any, Any], None]:
        self._view = self._guard.run(self._new_view, members)
        return self._add

    def _new_view(self, members: dict[str, Any]) -> ClaimView:
        return ClaimView(
            self._request, SourceRoots.from_config(self._vault_root, members.get("config"))
        )

    def _add(self, index: int, talk: Any, found: Any) -> None:
        if self._view is not None:
            self._guard.run(self._view.add, index, talk)

    def finish(self, assessment: Assessment) -> StreamedClaimPlan | None:
        """The claim decided, or None when the whole read must decide it (see the module)."""
        view = self._view
        if self._guard.failed or view is None:
            return None
        if any(len(positions) > 1 for positions in view.index.values()):
            return None
        try:
            outcome = view.plan()
        except Refusal as refusal:
            return StreamedClaimPlan(None, refusal)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            return None
        if not outcome.updated:
            return StreamedClaimPlan(outcome, None)
        return spliced(outcome, self._data, view.kept, view.count, assessment.root_version)
