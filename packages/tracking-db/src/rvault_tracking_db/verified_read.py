"""The owner read without the decoded tree: what ``rvault-db read`` needs.

The read report carries the database's verified bytes, not its decoded
value, and the decoded tree of a large vault is more than twice the file
(10,000 realistic talks: 94 MB of bytes, about 215 MB of Python objects).
So when the bytes are in a layout a writer produces (the artifact layout
every writer here uses, the public peer's indented one, or one line as
``jq -c`` or ``json.dumps`` writes it), the talks are decoded, proven and
assessed one at a time and dropped
(:func:`rvault_tracking_db.decoding.stream_database`); only their filenames
stay, for the duplicate check. Anything else (a hand-edited layout, a talk
whose bytes are not its own encoding) is read the whole way, by the very
function every other command uses, which decides codes and paths.

The assessment is the owner's :func:`assess_database`, composed: the root,
the config and the owner records are assessed by it with the talks left
out, and the talks by its own ``assess_talk``, in the order it reports them
(after the config, before the record arrays). The composition checks the
one thing it relies on, that the records' findings come last, and otherwise
falls back to the whole read; ``tests/test_read_stream.py`` compares both
on valid and refused vaults.

A caller that needs the talks themselves, not only their findings
(``rvault-db status``, :mod:`rvault_tracking_db.streamed_status`), passes a
``watch``: given the members (talks left out), it returns a hook that sees
each talk with its own findings right after the owner assessed it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rvault_contracts.issues import Collector, Issue

from rvault_tracking_db.assessment import Assessment, assess_database
from rvault_tracking_db.assessment.root import RECORD_ARRAYS
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.assessment.talks import assess_talks, deep_claim_checker
from rvault_tracking_db.decoding import NotProven, collector_paused, stream_database
from rvault_tracking_db.reader import (
    VerifiedRead,
    decode_and_assess,
    hashing,
    missing_refusal,
    open_snapshot,
    refuse_fatal,
)

#: ``hook(index, talk, findings)``: one talk just assessed, with the findings it added
TalkHook = Callable[[int, Any, Sequence[Issue]], None]
#: ``watch(members)``: the hook for a database's talks (its members, talks left out)
Watch = Callable[[dict[str, Any]], TalkHook]


def verify_database(path: str | os.PathLike[str]) -> VerifiedRead:
    """Read, decode and assess the database like ``read_database``, keeping no tree.

    Refuses exactly as :func:`rvault_tracking_db.reader.read_database` does.
    """
    _, database_path, snapshot = open_snapshot(path)
    data = snapshot.data
    if data is None:
        raise missing_refusal(database_path)
    with hashing(snapshot), collector_paused():
        assessment = streamed_assessment(data, database_parent(database_path))
        if assessment is None:
            _, assessment = decode_and_assess(data, database_path)
    refuse_fatal(assessment)
    return VerifiedRead(database_path, snapshot, assessment)


def streamed_assessment(
    data: bytes, parent: str | None, watch: Watch | None = None
) -> Assessment | None:
    """The assessment ``assess_database`` gives the decoded ``data``, talk by talk.

    None when the bytes are not proven to be an artifact encoding or the
    composition's premise does not hold: the caller then reads them whole.
    ``watch`` sees the talks only while no fatal finding has been made (its
    hook is never called for a read that will be refused, and for one that
    is not, it saw every talk).
    """
    stream = stream_database(data)
    if stream is None:
        return None
    members = stream.members
    # The owner's findings without the talks, and without the talks and the
    # records: the difference is the records' findings, which come last.
    whole = assess_database(members, database_parent=parent)
    head = assess_database(
        {key: [] if key in RECORD_ARRAYS else value for key, value in members.items()},
        database_parent=parent,
    )
    if whole.issues[: len(head.issues)] != head.issues:
        return None
    usable = whole.ok and whole.root_version is not None
    hook = watch(members) if watch is not None and usable else None
    try:
        talks = _talk_issues(stream.talks, whole.root_version, hook)
    except NotProven:
        return None
    if whole.root_version is None:
        return whole  # an unusable root: no talk is examined (the stream was still proven)
    return Assessment(whole.root_version, (*head.issues, *talks, *whole.issues[len(head.issues) :]))


def _talk_issues(
    talks: Iterator[Any], root_version: int | None, hook: TalkHook | None
) -> list[Issue]:
    """Each talk's findings from the owner's own talk loop, plus duplicates.

    Every talk is read (and so proven), even when the root is unusable.
    """
    issues = Collector()
    if root_version is None:
        for _ in talks:
            pass
        return issues.items
    missing = 1 if root_version == 0 else None
    watched = talks if hook is None else _watched(talks, issues, hook)
    assess_talks(watched, issues, missing, deep_claim_checker())
    return issues.items


def _watched(talks: Iterator[Any], issues: Collector, hook: TalkHook) -> Iterator[Any]:
    """The talks, each shown to ``hook`` once the owner's loop has assessed it.

    The loop asks for the next talk only when it is done with this one, so
    the findings added since this talk was handed over are its own. After a
    fatal finding the hook sees no more talks.
    """
    for index, talk in enumerate(talks):
        mark = len(issues.items)
        yield talk
        found = issues.items[mark:]
        if any(issue.is_error for issue in found):
            yield from talks  # still read, assessed and proven; no one else looks
            return
        hook(index, talk, found)
