"""The owner write returns-persistence installs a persisted batch through.

``rvault-returns persist`` decides what each batch member's talk becomes; the
database stays tracking-db's artifact. This module is that owner's side of
the hand-over, so the write is never hand-rolled by a consumer:

* :func:`locked_read` holds the persistent writer lock across the owner read,
  the consumer's computation and the install, so the bytes a decision was
  made on are exactly the bytes being replaced;
* :func:`complete_claim` closes a live claim as ``completed`` the way the queue
  owner closes claims (only the suffix is added; a historical v1 claim is
  advanced to v2, the one allowed version transition);
* :func:`commit_talks` assesses every replaced talk with the owner assessment
  (claim contracts included) and installs the candidate through
  ``rvault_contracts.writer`` bound to the snapshot that was read; untouched
  talks are spliced from the input bytes, so a five-talk batch does not
  re-encode a 10,000-talk database;
* :func:`post_batch_baseline` is the owner's baseline arithmetic run
  all-inclusive (``active_batch_excluded: false``, ``excluded_filenames: []``),
  the ``current_adherence_baseline`` printed after a batch.

Kept apart from ``queue/store.py`` on purpose: one small entry point with its
own contract, exported through ``api``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import (
    FaultHook,
    WriteReport,
    WriterError,
    WriterLock,
    install,
    writer_lock,
)

from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.model import Issues
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.assessment.talks import assess_talk
from rvault_tracking_db.queue.baseline import build_baseline
from rvault_tracking_db.queue.claims import (
    STATE_CLAIMED,
    STATE_COMPLETED,
    claim_issues,
    claim_version,
)
from rvault_tracking_db.queue.splice import splice
from rvault_tracking_db.queue.timestamps import canonicalize
from rvault_tracking_db.reader import ReadResult, read_database

RELEASE_REASON_COMPLETED = "completed"


@contextmanager
def locked_read(path: str | os.PathLike[str]) -> Iterator[tuple[ReadResult, WriterLock]]:
    """The owner read taken under the writer lock the later :func:`commit_talks` reuses."""
    with writer_lock(path) as lock:
        yield read_database(path), lock


def complete_claim(
    claim: Mapping[str, Any], *, released_at: str, result_status: str, result_payload_sha256: str
) -> dict[str, Any]:
    """A live claim closed as ``completed`` with its result receipt (snapshot untouched).

    Raises :class:`Refusal` (``claim_not_active``) for a claim that is not live.
    """
    if claim.get("state") != STATE_CLAIMED:
        raise Refusal("claim_not_active", "only a claimed generation can be completed", None)
    closed = {key: _copy(value) for key, value in claim.items()}
    if claim_version(claim) == 1:
        closed["schema_version"] = 2  # v1 closes as v2 and gains the receipt
    closed["state"] = STATE_COMPLETED
    closed["released_at"] = released_at
    closed["release_reason"] = RELEASE_REASON_COMPLETED
    closed["result_status"] = result_status
    closed["result_payload_sha256"] = result_payload_sha256
    return closed


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _fatal_changed(result: ReadResult, talks: Sequence[Any], changed: Iterable[int]) -> list[Any]:
    issues = Issues()
    missing = 1 if result.assessment is not None and result.assessment.root_version == 0 else None
    for index in changed:
        assess_talk(
            talks[index],
            f'$["talks"][{index}]',
            issues,
            missing_version=missing,
            claim_checker=claim_issues,
        )
    return [issue for issue in issues.items if issue.severity == "fatal"]


def candidate_bytes(
    result: ReadResult, replacements: Mapping[int, Mapping[str, Any]]
) -> tuple[dict[str, Any], bytes]:
    """The candidate database (talk ``index`` -> new talk) and its exact bytes, or a refusal.

    Every replaced talk is assessed by the owner assessment; a candidate the
    owner read would refuse is ``candidate_invalid`` and nothing is written.
    """
    if result.database is None or result.snapshot.data is None:
        raise Refusal("database_missing", "there is no database to persist into", "$")
    talks = list(result.database["talks"])
    for index, talk in replacements.items():
        talks[index] = talk
    candidate = dict(result.database)
    candidate["talks"] = talks
    changed = sorted(replacements)
    fatal = _fatal_changed(result, talks, changed)
    data = None if fatal else splice(result.snapshot.data, result.database, candidate, changed)
    if data is None and not fatal:
        assessment = assess_database(
            candidate, database_parent=database_parent(result.database_path)
        )
        fatal = list(assessment.fatal)
        data = artifact_bytes(candidate)
    if fatal:
        first = fatal[0]
        raise Refusal(
            "candidate_invalid",
            f"the persisted database would fail the owner read: {first.code}: {first.message}",
            first.path,
        )
    assert data is not None
    return candidate, data


def commit_talks(
    result: ReadResult,
    replacements: Mapping[int, Mapping[str, Any]],
    lock: WriterLock,
    *,
    fault: FaultHook | None = None,
) -> tuple[dict[str, Any], WriteReport]:
    """Assess and install the candidate bound to ``result``'s snapshot, in one transaction.

    Writer refusals keep their stable codes (``input_changed``, ...) as a
    :class:`Refusal`; from the install syscall on the writer reports instead of
    raising (``durability_state``).
    """
    candidate, data = candidate_bytes(result, replacements)
    try:
        report = install(result.path, data, expected=result.snapshot, lock=lock, fault=fault)
    except WriterError as exc:
        context: dict[str, Any] = dict(exc.context)
        context["file"] = exc.path
        raise Refusal(exc.code, exc.message, "$", **context) from None
    return candidate, report


def post_batch_baseline(
    talks: Iterable[Mapping[str, Any]], *, as_of: str, catalog_fingerprint: str
) -> dict[str, Any]:
    """The all-inclusive schema-v2 baseline over ``talks`` after a batch completed."""
    baseline = build_baseline(
        talks, batch_filenames=(), as_of=as_of, catalog_fingerprint=catalog_fingerprint
    ).baseline
    baseline["active_batch_excluded"] = False
    return baseline


def canonical_timestamp(value: str) -> str | None:
    """The owner's canonical UTC spelling of an aware ISO-8601 timestamp (``None``: not one).

    ``processed_date``, ``released_at`` and the baseline's ``as_of`` are one stamp, so they
    are spelled exactly as the queue owner spells ``claimed_at``.
    """
    return canonicalize(value)
