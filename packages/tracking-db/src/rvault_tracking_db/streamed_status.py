"""``rvault-db status`` without the decoded tree: each row built as the read streams its talk.

The status report carries a row per talk, not the talks, and the decoded
tree of a large vault is more than twice its file (10,000 realistic talks:
211 MB of bytes; the whole read and its report peaked at 782 MB). So status
reads the way ``rvault-db read`` does (:mod:`rvault_tracking_db.verified_read`):
where the bytes are proven to be a writer's layout, the talks come one at a
time, each assessed by the owner's own talk loop and then handed to
:class:`~rvault_tracking_db.status.StatusRows` (its row) and the identity
:class:`~rvault_tracking_db.preflight.talk_checks.LightView` (its own checks,
and the little the cross-talk checks need), and dropped.

The rows need each talk's warnings, which the hook gets with the talk; the
composition checks what it relies on, that these are exactly the read's
warnings grouped by talk (:func:`~rvault_tracking_db.assessment.trouble.by_talk`),
and otherwise, like for a layout the stream cannot prove or a row that
raised, the whole read and :func:`~rvault_tracking_db.status.build_status`
(today's code, which decides codes, paths and whatever it raises) answer.
Refusals are the read's own: the stream's assessment is the whole read's
(``tests/test_read_stream.py``), and ``tests/test_status_stream.py``
compares both reports byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.assessment.trouble import by_talk
from rvault_tracking_db.preflight.talk_checks import LightView, talk_ref
from rvault_tracking_db.status import StatusRows, build_status
from rvault_tracking_db.streamed_read import Guard, stream_or_read
from rvault_tracking_db.verified_read import TalkHook

Report = Callable[[str | None], dict[str, Any]]


def status_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``db-status-report`` v1 of the database at ``path``, talk by talk where it can be.

    The same document :func:`build_status` makes of ``read_database(path)``,
    and the same refusals.
    """
    result, report = stream_or_read(path, _StreamedRows)
    return build_status(result) if report is None else report(result.sha256)


class _StreamedRows:
    """The hook the stream shows each assessed talk to, and the report it adds up to."""

    def __init__(self, database_path: str, _data: bytes) -> None:
        self._database_path = database_path
        self._rows: StatusRows | None = None
        self._identity: LightView | None = None
        self._trouble: dict[int, list[Issue]] = {}
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> TalkHook:
        self._guard.run(self._start, members)
        return self._add

    def _start(self, members: dict[str, Any]) -> None:
        self._rows = StatusRows(self._database_path, members)
        self._identity = LightView(members, self._rows.vault_root)

    def _add(self, index: int, talk: Any, found: Sequence[Issue]) -> None:
        if self._guard.failed:
            return
        grouped = by_talk(found)
        self._trouble.update(grouped)
        self._guard.run(self._row, index, talk, grouped.get(index, []))

    def _row(self, index: int, talk: Any, trouble: list[Issue]) -> None:
        assert self._rows is not None and self._identity is not None
        if isinstance(talk, Mapping):
            self._identity.add(talk_ref(index, talk), talk)
        self._rows.add(index, talk, trouble)

    def finish(self, assessment: Assessment) -> Report | None:
        """The report given the bytes' digest, or None when it may differ from the whole read's."""
        rows, identity = self._rows, self._identity
        if rows is None or identity is None or self._guard.failed:
            return None
        if by_talk(assessment.warnings) != self._trouble:
            return None
        findings, version = identity.by_talk(), assessment.root_version
        return lambda sha256: rows.report(findings, sha256, version)
