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

Locking, the bound read and the install are the one apply protocol's
(:mod:`rvault_tracking_db.apply_protocol`, an :meth:`ApplyRequest.owner_write`
session: the caller has no dry run, so a reviewed digest is the caller's own
option), and the candidate bytes are the queue's
(:func:`rvault_tracking_db.queue.store.candidate_bytes`); this module only
adds what a batch hand-over needs on top: one small entry point with its own
contract, exported through ``api``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.writer import FaultHook, WriteReport, WriterLock

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.queue import store
from rvault_tracking_db.queue.baseline import build_baseline
from rvault_tracking_db.queue.claims import STATE_CLAIMED, STATE_COMPLETED, claim_version
from rvault_tracking_db.queue.timestamps import canonicalize
from rvault_tracking_db.reader import ReadResult

RELEASE_REASON_COMPLETED = "completed"


@contextmanager
def locked_read(path: str | os.PathLike[str]) -> Iterator[tuple[ReadResult, WriterLock]]:
    """The owner read taken under the writer lock the later :func:`commit_talks` reuses.

    An apply-protocol session: writer refusals (``lock_unavailable``, ...)
    come out as a :class:`Refusal` with their code and file, an unusable
    database as the reader's ``DatabaseRefusal``.
    """
    with session(path, ApplyRequest.owner_write()) as current:
        assert current.lock is not None
        yield current.result, current.lock


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


def candidate_bytes(
    result: ReadResult, replacements: Mapping[int, Mapping[str, Any]]
) -> tuple[dict[str, Any], bytes]:
    """The candidate database (talk ``index`` -> new talk) and its exact bytes, or a refusal.

    Every replaced talk is assessed by the owner assessment and spliced into
    the input bytes (:func:`store.candidate_bytes`); a candidate the owner
    read would refuse is ``candidate_invalid`` and nothing is written.
    """
    if result.database is None or result.snapshot.data is None:
        raise Refusal("database_missing", "there is no database to persist into", "$")
    talks = list(result.database["talks"])
    for index, talk in replacements.items():
        talks[index] = talk
    candidate = dict(result.database)
    candidate["talks"] = talks
    return candidate, store.candidate_bytes(result, candidate, changed=sorted(replacements))


def commit_talks(
    result: ReadResult,
    replacements: Mapping[int, Mapping[str, Any]],
    lock: WriterLock,
    *,
    fault: FaultHook | None = None,
) -> tuple[dict[str, Any], WriteReport]:
    """Assess and install the candidate bound to ``result``'s snapshot, in one transaction.

    ``result`` and ``lock`` are what :func:`locked_read` yielded; the install
    is the apply protocol's. Writer refusals keep their stable codes
    (``input_changed``, ...) as a :class:`Refusal`; from the install syscall
    on the writer reports instead of raising (``durability_state``).
    """
    candidate, data = candidate_bytes(result, replacements)
    report = Session(ApplyRequest.owner_write(), result, lock).install(data, fault=fault)
    assert report is not None  # an owner write always applies
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
