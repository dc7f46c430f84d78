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
a read with a fatal finding), a check that raised, and ``--capture`` (its
review compares a capture with the talks it names). A read the owner
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
from rvault_tracking_db.preflight.findings import Findings
from rvault_tracking_db.preflight.talk_checks import LightView, talk_ref
from rvault_tracking_db.reader import DatabaseRefusal, hashing, open_snapshot, refuse_fatal
from rvault_tracking_db.verified_read import TalkHook, streamed_assessment


@dataclass(frozen=True)
class Checked:
    """What the report is made of: every finding, the bytes' digest, the talks checked."""

    findings: Findings
    sha256: str | None
    talk_count: int


def streamed_checks(located: Located) -> Checked | None:
    """The checks of the database ``located`` names, talk by talk; None: read it whole."""
    try:
        _, database_path, snapshot = open_snapshot(located.database)
    except DatabaseRefusal:
        return None  # refused again by the whole read, which reports it
    data = snapshot.data
    if data is None:
        return None
    talks = _StreamedTalks(Path(located.vault_root))
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


class _StreamedTalks:
    """The hook the stream shows each assessed talk to, and the findings they add up to."""

    def __init__(self, vault_root: Path) -> None:
        self._vault_root = vault_root
        self._view: LightView | None = None
        self._failed = False

    def watch(self, members: dict[str, Any]) -> TalkHook:
        try:
            self._view = LightView(members, self._vault_root, full=True)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            self._failed = True
        return self._add

    def _add(self, index: int, talk: Any, _found: Sequence[Issue]) -> None:
        if self._failed or not isinstance(talk, Mapping):
            return  # talks_of checks only the talks that are objects
        assert self._view is not None
        try:
            self._view.add(talk_ref(index, talk), talk)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            self._failed = True

    def checked(self, sha256: str | None) -> Checked | None:
        """Every finding, or None when a check raised (or the hook never started)."""
        if self._view is None or self._failed:
            return None
        try:
            findings = self._view.findings()
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            return None
        return Checked(findings, sha256, self._view.talk_count)
