"""The owner read of a command that plans while the talks stream.

``status``, ``queue normalize``, ``queue inspect`` and ``queue claim`` need
each talk once, not the decoded tree (more than twice the file at archive
size). Where the bytes
are proven to be a writer's layout,
:func:`~rvault_tracking_db.verified_read.streamed_assessment` shows each
talk to the command's planner right after the owner's talk loop assessed it;
the planner says at the end whether what it made is the whole read's answer.
When it is not, or the stream cannot prove the bytes, the whole read
(:func:`~rvault_tracking_db.reader.decode_and_assess`, what ``read_database``
runs) answers and the command plans on its tree as before. Refusals are the
read's own either way: the stream's assessment is the whole read's
(``tests/test_read_stream.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from rvault_tracking_db.assessment import Assessment
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.decoding import collector_paused
from rvault_tracking_db.reader import (
    ReadResult,
    decode_and_assess,
    hashing,
    missing_refusal,
    open_snapshot,
    refuse_fatal,
)
from rvault_tracking_db.verified_read import TalkHook, streamed_assessment

T = TypeVar("T")


class Guard:
    """A planner's steps until one raises; after that the planner has failed for good.

    The stream never words an error: a planner whose step raised answers None
    from ``finish``, and the whole read runs the same code again and raises there.
    """

    def __init__(self) -> None:
        self.failed = False

    def run(self, step: Callable[..., T], *args: Any) -> T | None:
        """``step(*args)``; None, and nothing run, once a step has raised."""
        if self.failed:
            return None
        try:
            return step(*args)
        except Exception:  # noqa: BLE001 - the whole read runs it again and raises it there
            self.failed = True
            return None


class TalkPlanner(Protocol):
    """What a command makes of the talks as they stream."""

    def watch(self, members: dict[str, Any]) -> TalkHook:
        """The hook for the talks, given the members (talks left out)."""
        ...

    def finish(self, assessment: Assessment) -> Any:
        """The plan, or None when it may differ from the whole read's."""
        ...


def stream_or_read(
    path: str | os.PathLike[str], planner_for: Callable[[str, bytes], TalkPlanner]
) -> tuple[ReadResult, Any]:
    """``read_database(path)``'s refusals, and the planner's plan or None.

    With a plan the result carries no tree (``database`` None); without one
    it is the whole read's. ``planner_for(database_path, data)`` makes the
    planner once the snapshot is read; the caller keeps no reference to it,
    so what it made is released before a whole read.
    """
    target, database_path, snapshot = open_snapshot(path)
    data = snapshot.data
    if data is None:
        raise missing_refusal(database_path)
    planner = planner_for(database_path, data)
    with hashing(snapshot), collector_paused():
        assessment = streamed_assessment(data, database_parent(database_path), planner.watch)
    if assessment is not None:
        refuse_fatal(assessment)
        plan = planner.finish(assessment)
        if plan is not None:
            return ReadResult(target, database_path, snapshot, None, assessment), plan
    del planner  # what it made for nothing, before the whole read
    with hashing(snapshot):
        document, assessment = decode_and_assess(data, database_path)
    return ReadResult(target, database_path, snapshot, document, assessment), None
