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
from collections.abc import Mapping, Sequence
from typing import Any

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.assessment.trouble import by_talk
from rvault_tracking_db.decoding import collector_paused
from rvault_tracking_db.preflight.talk_checks import LightView, talk_ref
from rvault_tracking_db.reader import (
    ReadResult,
    decode_and_assess,
    hashing,
    missing_refusal,
    open_snapshot,
    refuse_fatal,
)
from rvault_tracking_db.status import StatusRows, build_status
from rvault_tracking_db.verified_read import TalkHook, streamed_assessment


def status_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``db-status-report`` v1 of the database at ``path``, talk by talk where it can be.

    The same document :func:`build_status` makes of ``read_database(path)``,
    and the same refusals.
    """
    target, database_path, snapshot = open_snapshot(path)
    data = snapshot.data
    if data is None:
        raise missing_refusal(database_path)
    streamed = _StreamedRows(database_path)
    with hashing(snapshot), collector_paused():
        assessment = streamed_assessment(data, database_parent(database_path), streamed.watch)
    if assessment is not None:
        refuse_fatal(assessment)
        report = streamed.report(assessment, snapshot.sha256)
        if report is not None:
            return report
    del streamed  # rows made for nothing
    with hashing(snapshot):
        document, assessment = decode_and_assess(data, database_path)
    return build_status(ReadResult(target, database_path, snapshot, document, assessment))


class _StreamedRows:
    """The hook the stream shows each assessed talk to, and the report it adds up to."""

    def __init__(self, database_path: str) -> None:
        self._database_path = database_path
        self._rows: StatusRows | None = None
        self._identity: LightView | None = None
        self._trouble: dict[int, list[Issue]] = {}
        self._failed = False

    def watch(self, members: dict[str, Any]) -> TalkHook:
        try:
            self._rows = StatusRows(self._database_path, members)
            self._identity = LightView(members, self._rows.vault_root)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            self._failed = True
        return self._add

    def _add(self, index: int, talk: Any, found: Sequence[Issue]) -> None:
        if self._failed:
            return
        assert self._rows is not None and self._identity is not None
        grouped = by_talk(found)
        self._trouble.update(grouped)
        try:
            if isinstance(talk, Mapping):
                self._identity.add(talk_ref(index, talk), talk)
            self._rows.add(index, talk, grouped.get(index, []))
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            self._failed = True

    def report(self, assessment: Assessment, sha256: str | None) -> dict[str, Any] | None:
        """The document, or None when the rows may differ from the whole read's."""
        if self._rows is None or self._identity is None or self._failed:
            return None
        if by_talk(assessment.warnings) != self._trouble:
            return None
        return self._rows.report(self._identity.by_talk(), sha256, assessment.root_version)
