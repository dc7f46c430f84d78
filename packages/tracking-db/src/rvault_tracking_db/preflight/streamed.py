"""``rvault-db preflight`` without the decoded tree: each talk checked as the read streams it.

The report carries findings, not the talks, and the decoded tree of a large
vault is more than twice its file (10,000 realistic talks: 211 MB of bytes;
the whole read and its checks peaked at 777 MB). So preflight reads the way
``rvault-db read`` and ``status`` do (:mod:`rvault_tracking_db.verified_read`):
where the bytes are proven to be a writer's layout, the talks come one at a
time, each assessed by the owner's own talk loop and then handed to the full
:class:`~rvault_tracking_db.preflight.talk_checks.LightView` (its identity
and artifact checks run at once; of the talk only what the cross-talk and
deck-binding checks need is kept), and dropped.

What the stream cannot answer alone goes the whole way
(:func:`rvault_tracking_db.preflight.run.run_preflight`'s whole read, the code
preflight ran before, which decides codes, paths and whatever it raises): a
layout the stream cannot prove, a missing or unreadable file, a root
assertion preflight tolerates and reports (the stream's hook sees no talk of
a read with a fatal finding), a check that raised, and a ``--capture`` the
capture reader refuses (the whole read refuses it only after checking the
talks, and not at all for an unusable database). A capture that reads is
reviewed against the talks it names, kept as they stream past. A read the owner
refuses is reported from the stream's own assessment, which is the whole
read's (``tests/test_read_stream.py``): the refusal is the one
``read_database`` raises, by the same :func:`~rvault_tracking_db.reader.refuse_fatal`.
``tests/test_preflight_stream.py`` compares both reports byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.decoding import collector_paused
from rvault_tracking_db.preflight.authority import Located, report_unusable, tolerated
from rvault_tracking_db.preflight.capture_review import check_capture, named_talks
from rvault_tracking_db.preflight.findings import Findings, TalkRef
from rvault_tracking_db.preflight.talk_checks import LightView, config_of, talk_ref
from rvault_tracking_db.reader import DatabaseRefusal, hashing, open_snapshot, refuse_fatal
from rvault_tracking_db.streamed_read import Guard
from rvault_tracking_db.verified_read import TalkHook, streamed_assessment


@dataclass(frozen=True)
class Checked:
    """What the report is made of: every finding, the bytes' digest, the talks checked."""

    findings: Findings
    sha256: str | None
    talk_count: int


def streamed_checks(located: Located, capture: str | None = None) -> Checked | None:
    """The checks of the database ``located`` names, talk by talk; None: read it whole.

    ``capture``: a capture-identity file to review too; the talks it names are kept.
    """
    review = None if capture is None else _Review.read(capture)
    if capture is not None and review is None:
        return None  # the whole read refuses the capture after checking the talks
    try:
        _, database_path, snapshot = open_snapshot(located.database)
    except DatabaseRefusal:
        return None  # refused again by the whole read, which reports it
    data = snapshot.data
    if data is None:
        return None
    talks = _StreamedTalks(Path(located.vault_root), review)
    with hashing(snapshot), collector_paused():
        assessment = streamed_assessment(data, database_parent(database_path), talks.watch)
    if assessment is None:
        return None
    if assessment.fatal:
        return _refused(assessment)
    return talks.checked(snapshot.sha256)


def _refused(assessment: Assessment) -> Checked | None:
    """The owner read's refusal as its finding; None when it tolerates every fatal issue
    (a root assertion: the whole read reports it and still checks the talks)."""
    findings = Findings()
    try:
        refuse_fatal(assessment, tolerated)
    except DatabaseRefusal as refusal:
        report_unusable(refusal, findings)
        return Checked(findings, None, 0)
    return None


class _Review:
    """``--capture``: the capture, and the talks it names as they stream past."""

    def __init__(self, capture: Mapping[str, Any]) -> None:
        self.capture = capture
        self._names = named_talks(capture)
        self.talks: list[tuple[TalkRef, Mapping[str, Any]]] = []

    @classmethod
    def read(cls, path: str) -> _Review | None:
        """The capture's review; None when the capture reader refuses it (or raises)."""
        # Imported here, as the whole read does: the capture reader brings the
        # source-lane plan and apply protocol.
        from rvault_tracking_db.sources.identity_shortcut import read_capture

        try:
            return cls(read_capture(path))
        except Exception:  # noqa: BLE001 - the whole read decides whether and what it raises
            return None

    def keep(self, ref: TalkRef, talk: Mapping[str, Any]) -> None:
        if ref.filename in self._names:
            self.talks.append((ref, talk))


class _StreamedTalks:
    """The hook the stream shows each assessed talk to, and the findings they add up to."""

    def __init__(self, vault_root: Path, review: _Review | None) -> None:
        self._vault_root = vault_root
        self._review = review
        self._config: Mapping[str, Any] = {}
        self._view: LightView | None = None
        self._guard = Guard()

    def watch(self, members: dict[str, Any]) -> TalkHook:
        self._guard.run(self._start, members)
        return self._add

    def _start(self, members: dict[str, Any]) -> None:
        self._config = config_of(members)
        self._view = LightView(members, self._vault_root, full=True)

    def _add(self, index: int, talk: Any, _found: Sequence[Issue]) -> None:
        if self._guard.failed or not isinstance(talk, Mapping):
            return  # talks_of checks only the talks that are objects
        assert self._view is not None
        ref = talk_ref(index, talk)
        self._guard.run(self._view.add, ref, talk)
        if self._review is not None:
            self._review.keep(ref, talk)

    def checked(self, sha256: str | None) -> Checked | None:
        """Every finding, or None when a check raised (or the hook never started)."""
        if self._view is None or self._guard.failed:
            return None
        return self._guard.run(self._checked, self._view, sha256)

    def _checked(self, view: LightView, sha256: str | None) -> Checked:
        findings = view.findings()
        if self._review is not None:
            review = self._review
            check_capture(review.capture, sha256, review.talks, self._config, findings)
        return Checked(findings, sha256, view.talk_count)
