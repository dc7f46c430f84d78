"""Step 2 of persist: the batch's members once every rule holds, else one refusal.

Persist applies a batch only when the validate command's full report is ok
(:func:`validator.validate_batch`); then it checks what only persistence
knows: no member of the batch is already closed (a lifecycle split), the run
stamp does not precede any claim, and a return asserting a processed_date
timestamp asserts the batch stamp. A batch whose every return was already
persisted is refused as a retry with the receipts it left
(``batch_already_persisted``), not as a batch of errors to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector
from rvault_tracking_db import api as tracking

from rvault_returns_persistence.batch_document import iter_batch
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.claim_resolution import ALREADY_PERSISTED, return_version
from rvault_returns_persistence.database import Database, Snapshot
from rvault_returns_persistence.validator import validate_batch

MAX_REPORTED_ERRORS = 50


@dataclass
class Member:
    """One validated return of the batch persist applies, bound to its talk and claim."""

    path: str
    ret: dict[str, Any]
    version: int
    status: str
    filename: str
    index: int  # the talk's position in the database's talks
    talk: dict[str, Any]
    claim: dict[str, Any]
    generation: dict[str, Any]


def validate_for_persist(
    document: Any, snapshot: Snapshot, catalog: Catalog, *, catalog_label: str, stamp: str
) -> list[Member]:
    """Step 2 of persist: the batch's members once every rule holds, else a refusal.

    The validate command's rules (:func:`validator.validate_batch`), then what only
    persistence knows: no member of the batch is already closed, the stamp
    does not precede a claim, a processed_date timestamp is the stamp.
    """
    report = validate_batch(
        document,
        db=snapshot.db,
        catalog=catalog,
        vault_root=snapshot.vault_root,
        catalog_label=catalog_label,
    )
    if not report["ok"]:
        _refuse_persisted(report, snapshot.db)
        _refuse_invalid(report)
    members = _members(document, snapshot, report)
    _gate(members, snapshot.talks, stamp)
    return members


def _refuse_persisted(report: dict[str, Any], db: Database) -> None:
    """A batch whose every return was already persisted: nothing to do, and its receipts.

    Persisting the same batch again is a retry (a lost response, a second
    terminal), not a batch of errors to fix; the refusal says where each
    talk's receipt is (the closed claim's ``result_payload_sha256``).
    """
    results = report["returns"]
    codes = {e["code"] for r in results for e in r["errors"]}
    if report["batch_errors"] or not results or codes != {ALREADY_PERSISTED}:
        return
    receipts = []
    for result in results:
        talk = db.talk(result["filename"]) or {}
        claim = talk.get("_queue_claim") or {}
        receipts.append(
            {
                "filename": result["filename"],
                "processed_date": talk.get("processed_date"),
                "result_payload_sha256": claim.get("result_payload_sha256"),
                "released_at": claim.get("released_at"),
            }
        )
    first = results[0]["errors"][0]
    raise Refusal(
        "batch_already_persisted",
        f"all {len(results)} returns of this batch were already persisted; first: "
        f"{first['message']}",
        first["path"],
        receipts=receipts,
        errors=[{"filename": r["filename"], **e} for r in results for e in r["errors"]],
        hint="nothing to do: the talks are processed (`rvault-db status DB`); each receipt is "
        "the talk's _queue_claim.result_payload_sha256 (`rvault-db read DB`)",
    )


def _refuse_invalid(report: dict[str, Any]) -> None:
    errors: list[dict[str, Any]] = [{"filename": None, **e} for e in report["batch_errors"]]
    for result in report["returns"]:
        errors += [{"filename": result["filename"], **e} for e in result["errors"]]
    first = errors[0] if errors else {"code": "returns_invalid", "path": "$"}
    raise Refusal(
        "returns_invalid",
        f"{report['return_count'] - report['valid_count']} of {report['return_count']} returns "
        f"are invalid, {len(report['batch_errors'])} batch errors; first: {first['code']} at "
        f"{first['path']}",
        first.get("path"),
        errors=errors[:MAX_REPORTED_ERRORS],
        error_count=len(errors),
        hint="run `rvault-returns validate` on the batch, fix every error, then persist the "
        "whole batch again",
    )


def _members(document: Any, snapshot: Snapshot, report: dict[str, Any]) -> list[Member]:
    index = {talk["filename"]: i for i, talk in enumerate(snapshot.talks)}
    generations = {r["path"]: r["pattern_scoring_generation"] for r in report["returns"]}
    members = []
    for path, _, ret in iter_batch(document):
        version = return_version(ret, Collector(), path)
        assert version is not None  # validated
        filename = ret["filename"]
        talk = snapshot.db.talks[filename]
        claim = tracking.active_claim(talk)
        assert claim is not None
        members.append(
            Member(
                path,
                ret,
                version,
                ret["status"],
                filename,
                index[filename],
                talk,
                dict(claim),
                generations[path],
            )
        )
    return members


def _gate(members: list[Member], talks: list[Any], stamp: str) -> None:
    """What validation cannot see: closed members of the same batch, a stamp before the
    claim, a processed_date timestamp that is not the batch stamp (refused in that order)."""
    _refuse_lifecycle_split(members, talks)
    _refuse_stamp_before_claim(members, stamp)
    for member in members:
        _refuse_other_date(member, stamp)


def _refuse_lifecycle_split(members: list[Member], talks: list[Any]) -> None:
    """A batch some of whose members are already closed cannot be finished piecemeal."""
    keys = {(m.claim.get("run_id"), m.claim.get("batch_id")) for m in members}
    for talk in talks:
        claim = talk.get("_queue_claim") if isinstance(talk, dict) else None
        if (
            isinstance(claim, dict)
            and (claim.get("run_id"), claim.get("batch_id")) in keys
            and claim.get("state") != "claimed"
        ):
            raise Refusal(
                "batch_lifecycle_split",
                f"batch member {talk.get('filename')} is already {claim.get('state')}; a "
                "partially closed batch cannot be finished piecemeal",
                "$",
                hint="recover the batch (rvault-db queue recover) and claim a fresh generation",
            )


def _refuse_stamp_before_claim(members: list[Member], stamp: str) -> None:
    """The completion stamp cannot precede any member's claimed_at."""
    completed = datetime.fromisoformat(stamp)
    for member in members:
        claimed = member.claim.get("claimed_at")
        spelled = tracking.persist_write.canonical_timestamp(claimed) if isinstance(
            claimed, str
        ) else None  # fmt: skip
        if spelled is not None and completed < datetime.fromisoformat(spelled):
            raise Refusal(
                "run_date_before_claim",
                f"--run-date {stamp} precedes the claim of {member.filename} ({claimed})",
                None,
                hint="pass the completion stamp of this batch (after its claimed_at)",
            )


def asserted_date(member: Member) -> str | None:
    """The timestamp a processed return asserts as its processed_date (None: none, or a
    date-only value, which is advisory)."""
    value = member.ret.get("processed_date")
    if member.status.startswith("skipped_") or not isinstance(value, str) or "T" not in value:
        return None
    return tracking.persist_write.canonical_timestamp(value)


def _refuse_other_date(member: Member, stamp: str) -> None:
    """Persistence owns processed_date: a return may assert only the batch stamp."""
    normalized = asserted_date(member)
    if normalized is not None and normalized != stamp:
        value = member.ret["processed_date"]
        raise Refusal(
            "processed_date_mismatch",
            f"the return asserts processed_date {value!r}, which is not the batch stamp {stamp}",
            f"{member.path}.processed_date",
            hint="omit processed_date from the return; persistence owns it",
        )
