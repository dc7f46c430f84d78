"""``persist``: a whole validated batch becomes vault truth, or nothing changes.

A dry run by default: every step below runs except the install, and the
report says what an apply would do (the talks and fields it would change,
the claims it would close with their receipts, the post-batch baseline, the
input and output SHA-256) and the exact ``--apply --expected-sha256`` command
to run next. The pipeline, in order, under the database's writer lock when
applying (tracking-db's one apply protocol, ``api.apply_protocol``), each
step one function of the module named for it:

1. **read** (:func:`database.read_for_persist`): the owner read of the
   database (its snapshot binds the final install; with ``apply`` the bytes
   must be the reviewed ``expected_sha256``), a current root, the vault;
2. **validate** (:func:`persist_gate.validate_for_persist`): the validate
   command's full rules over the batch, including the batch gate (exact live
   membership, generations, one epoch and baseline), plus the facts only
   persistence knows: no member of the batch is already closed (a lifecycle
   split), the run stamp does not precede the claim, and a return asserting
   a processed_date timestamp asserts the batch stamp;
3. **canonicalize** (:func:`canonical_ledger.canonicalize`), per member: the
   canonical evidence (verified citations, inspection rows, outcomes);
4. **merge** (:func:`merge.merge_member`), per member: the return applied to
   its talk, then the claim closed with the receipt of the exact return;
5. **install** (:func:`install.install`, apply only): one install of the
   whole candidate (the owner's candidate bytes: owner assessment, untouched
   talks spliced) through the session's writer protocol bound to the snapshot.

The report adds the post-batch all-inclusive baseline over the candidate
(installed or not). Any refusal before step 5 raises and leaves the
database's bytes and inode exactly as they were.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts import cli
from rvault_contracts.cli import Refusal
from rvault_contracts.writer import FaultHook
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.canonical_ledger import canonicalize
from rvault_returns_persistence.catalog import Catalog, load_catalog
from rvault_returns_persistence.database import Snapshot, database_error, read_for_persist
from rvault_returns_persistence.install import Installed, install
from rvault_returns_persistence.merge import Merged, merge_member
from rvault_returns_persistence.persist_gate import Member, validate_for_persist

REPORT_VERSION = 2
DEFAULT_HINT = "nothing was written; fix what the error names and persist the whole batch again"
OWNER_WRITE_HINTS = {
    "input_changed": "another writer changed the database meanwhile; validate and persist again",
    "lock_unavailable": "another writer holds the database lock; retry when it has finished",
    "candidate_invalid": "the merged talk would break the tracking-db contract at path; "
    "run `rvault-db read DB` and report the finding (nothing was written)",
}


@dataclass(frozen=True)
class PersistRequest:
    database: Path
    returns: Any  # the decoded RETURNS.json document
    run_date: str
    vault_root: Path | None = None
    catalog_dir: Path | None = None
    apply: bool = False  # default: a dry run that reports what it would write
    expected_sha256: str | None = None  # with apply: the dry run's input_sha256 (required)
    fault: FaultHook | None = None  # tests inject failures at named steps
    command: tuple[str, ...] | None = None  # the dry run's words (default: the running CLI)

    @property
    def catalog_label(self) -> str:
        return "default" if self.catalog_dir is None else "custom"


def _call(fault: FaultHook | None, step: str) -> None:
    if fault is not None:
        fault(step)


def run_stamp(value: str) -> str:
    stamp = tracking.persist_write.canonical_timestamp(value)
    if stamp is None:
        raise Refusal(
            "run_date_invalid",
            f"--run-date {value!r} is not a timezone-aware ISO-8601 timestamp",
            None,
            hint="pass the batch completion stamp, e.g. --run-date 2026-08-01T09:00:00+00:00",
        )
    return stamp


def persist(request: PersistRequest) -> dict[str, Any]:
    """Persist the whole batch (or, by default, report what would be persisted).

    The tracking-db apply protocol (``rvault_tracking_db.api.apply_protocol``)
    decides everything about the write: a dry run reads without the lock and
    installs nothing; ``apply`` requires ``expected_sha256`` (the dry run's
    ``input_sha256``), takes the writer lock, refuses other bytes with
    ``expected_sha256_mismatch`` and installs bound to the snapshot read. The
    same computation runs in both modes, so the dry run's ``output_sha256``
    is the digest the apply installs when nothing changed in between.
    Returns the ``returns-persistence-report`` v2.
    """
    stamp = run_stamp(request.run_date)
    catalog = load_catalog(request.catalog_dir)
    apply = tracking.apply_protocol.ApplyRequest(request.apply, request.expected_sha256)
    try:
        with tracking.apply_protocol.session(request.database, apply) as current:
            return _pipeline(request, catalog, stamp, current)
    except tracking.DatabaseRefusal as refusal:
        raise database_error(refusal, request.database) from None
    except Refusal as refusal:
        # Owner-write and writer refusals (candidate_invalid, input_changed, lock_unavailable)
        # come without a next step; nothing was written, so the next step is always the same.
        refusal.context.setdefault("hint", OWNER_WRITE_HINTS.get(refusal.code, DEFAULT_HINT))
        raise


def _pipeline(
    request: PersistRequest, catalog: Catalog, stamp: str, current: Any
) -> dict[str, Any]:
    """read, validate, canonicalize, merge, install: the whole of persist, in order."""
    snapshot = read_for_persist(current.result, request.database, request.vault_root)
    members = validate_for_persist(
        request.returns, snapshot, catalog, catalog_label=request.catalog_label, stamp=stamp
    )
    _call(request.fault, "validated")
    merged: list[Merged] = []
    for member in members:
        ledger = canonicalize(member, snapshot, catalog)
        merged.append(merge_member(member, ledger, catalog, stamp))
        _call(request.fault, f"merged:{member.filename}")
    installed = install(current, snapshot, merged, request.fault)
    return _report(request, catalog, stamp, snapshot, members, merged, installed)


def _report(
    request: PersistRequest,
    catalog: Catalog,
    stamp: str,
    snapshot: Snapshot,
    members: list[Member],
    merged: list[Merged],
    installed: Installed,
) -> dict[str, Any]:
    """The ``returns-persistence-report`` v2 of the batch (applied or a dry run)."""
    baseline = tracking.persist_write.post_batch_baseline(
        installed.candidate["talks"], as_of=stamp, catalog_fingerprint=catalog.fingerprint
    )
    first, outcome = members[0].claim, installed.outcome
    goals = tracking.improvement_goals(installed.candidate)
    return {
        "apply_requested": outcome["apply_requested"],
        "batch": {
            "batch_id": str(first.get("batch_id")),
            "claimed_at": first.get("claimed_at"),
            "member_count": len(members),
            "run_id": str(first.get("run_id")),
        },
        "catalog": {**catalog.summary(), "source": request.catalog_label},
        "claims_closed": [_closed_claim(m.talk, m.member) for m in merged],
        "current_adherence_baseline": baseline,
        "database_written": outcome["database_written"],
        "durability_state": outcome["durability_state"],
        "goals_command": _goals_command(request, stamp)
        if any(g["writes"] for g in goals)
        else None,
        "improvement_goals": goals,
        "input_sha256": outcome["input_sha256"],
        "mode": outcome["mode"],
        "next_command": _next_command(request, snapshot.read.sha256) if installed.dry_run else None,
        "ok": True,
        "output_sha256": outcome["output_sha256"],
        "processed_date": stamp,
        "schema_version": REPORT_VERSION,
        "talks": sorted((m.row for m in merged), key=lambda r: r["filename"]),
        "warnings": outcome["warnings"],
    }


def _closed_claim(talk: dict[str, Any], member: Member) -> dict[str, Any]:
    """What the member's claim becomes: the receipt an apply records (or recorded)."""
    claim = talk["_queue_claim"]
    return {
        "batch_id": str(claim.get("batch_id")),
        "filename": member.filename,
        "released_at": claim["released_at"],
        "result_payload_sha256": claim["result_payload_sha256"],
        "result_status": claim["result_status"],
        "run_id": str(claim.get("run_id")),
        "state": claim["state"],
    }


def _goals_command(request: PersistRequest, stamp: str) -> str:
    """The follow-up that records the goals' verification (its own reviewed transaction).

    Persist installs the batch; the goal records belong to the goals writer, whose one
    expectation-bound plan is reviewed against the post-batch bytes like every write.
    """
    return shlex.join(
        ["rvault-db", "goals", "verify", str(request.database), "--checked-at", stamp[:10]]
    )


def _next_command(request: PersistRequest, input_sha256: str | None) -> str | None:
    """The exact ``--apply`` command of this dry run (None: no command line is known)."""
    words = request.command if request.command is not None else cli.invocation()
    return cli.apply_command(input_sha256, words)
