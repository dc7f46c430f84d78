"""``persist``: a whole validated batch becomes vault truth, or nothing changes.

A dry run by default: every step below runs except the install, and the
report says what an apply would do (the talks and fields it would change,
the claims it would close with their receipts, the post-batch baseline, the
input and output SHA-256) and the exact ``--apply --expected-sha256`` command
to run next. The protocol, in order, under the database's writer lock when
applying (tracking-db's one apply protocol, ``api.apply_protocol``):

1. the owner read of the database (its snapshot binds the final install;
   with ``apply`` the bytes must be the reviewed ``expected_sha256``);
2. the validate command's full rules over the batch, including the batch
   gate (exact live membership, generations, one epoch and baseline), plus
   the two facts only persistence knows: no member of the batch is already
   closed (a lifecycle split) and the run stamp does not precede the claim;
3. per member, canonical evidence (:mod:`canonical_ledger`: verified
   citations, inspection rows, outcomes) and the merge (:mod:`merge`), then
   the claim closed with the receipt of the exact return;
4. (apply only) one install of the whole candidate: the owner's candidate
   bytes (``api.persist_write.candidate_bytes``: owner assessment, untouched
   talks spliced) through the session's writer protocol bound to the snapshot;
5. the post-batch all-inclusive baseline over the candidate (installed or not).

Any refusal before step 4 raises and leaves the database's bytes and inode
exactly as they were.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rvault_contracts import cli
from rvault_contracts.canonical import payload_sha256
from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector
from rvault_contracts.writer import FaultHook
from rvault_tracking_db import api as tracking

from rvault_returns_persistence import scoring_generation
from rvault_returns_persistence.canonical_ledger import LedgerBuilder, stamp_metadata
from rvault_returns_persistence.catalog import Catalog, load_catalog
from rvault_returns_persistence.checks.inspection import check_inspection
from rvault_returns_persistence.database import Database, database_error, from_read
from rvault_returns_persistence.legacy_comparison import infer_groups
from rvault_returns_persistence.merge import MergeResult, merge_processed
from rvault_returns_persistence.validator import (
    ALREADY_PERSISTED,
    iter_batch,
    return_context,
    return_version,
    validate_batch,
)
from rvault_returns_persistence.verified_artifacts import VerifiedArtifacts

REPORT_VERSION = 2
DRY_RUN_STATE = "dry_run"
CURRENT_TALK_SCHEMA = 5
CURRENT_SCORING_SCHEMA = 5
MAX_REPORTED_ERRORS = 50
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


@dataclass
class Member:
    path: str
    ret: dict[str, Any]
    version: int
    status: str
    filename: str
    index: int
    talk: dict[str, Any]
    claim: dict[str, Any]
    generation: dict[str, Any]


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


def _members(document: Any, db: Database, report: dict[str, Any], talks: list[Any]) -> list[Member]:
    index = {talk["filename"]: i for i, talk in enumerate(talks)}
    generations = {r["path"]: r["pattern_scoring_generation"] for r in report["returns"]}
    members = []
    for path, _, ret in iter_batch(document):
        version = return_version(ret, Collector(), path)
        assert version is not None  # validated
        filename = ret["filename"]
        talk = db.talks[filename]
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
    """What validation cannot see: closed members of the same batch, a stamp before the claim."""
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


def _processed_date_warning(member: Member, stamp: str) -> list[dict[str, str]]:
    value = member.ret.get("processed_date")
    if not isinstance(value, str):
        return []
    normalized = tracking.persist_write.canonical_timestamp(value) if "T" in value else None
    if normalized is None:
        return [
            {
                "code": "processed_date_advisory",
                "message": f"the return's date-only processed_date {value!r} is advisory; "
                f"the batch stamp {stamp} is recorded",
                "path": f"{member.path}.processed_date",
            }
        ]
    if normalized != stamp:
        raise Refusal(
            "processed_date_mismatch",
            f"the return asserts processed_date {value!r}, which is not the batch stamp {stamp}",
            f"{member.path}.processed_date",
            hint="omit processed_date from the return; persistence owns it",
        )
    return []


class _Persister:
    def __init__(
        self, request: PersistRequest, catalog: Catalog, db: Database, vault_root: Path
    ) -> None:
        self.request = request
        self.catalog = catalog
        self.db = db
        self.vault_root = vault_root
        config = db.root.get("config")
        roots = tracking.SourceRoots.from_config(vault_root, config)
        self.pptx_root = roots.pptx_source_dir

    def ledger(self, member: Member) -> tuple[dict[str, Any] | None, Callable[[dict], None]]:
        """The canonical observations of a v4/v5 return and the post-merge stamping step."""
        if member.version < 4:
            return None, lambda _talk: None
        issues = Collector()
        ctx = return_context(
            member.path,
            member.ret,
            version=member.version,
            status=member.status,
            talk=member.talk,
            claim=member.claim,
            db=self.db,
            catalog=self.catalog,
            vault_root=self.vault_root,
            issues=issues,
        )
        po = member.ret["pattern_observations"]
        inspection = check_inspection(ctx, po, f"{member.path}.pattern_observations")
        if issues.items:  # validation passed on the same inputs: the vault moved under us
            first = issues.items[0]
            raise Refusal(
                "artifact_changed",
                f"an artifact changed since validation: {first.code}: {first.message}",
                first.path,
                hint="re-validate the batch against the current vault",
            )
        evidence = VerifiedArtifacts(
            vault_root=self.vault_root,
            pptx_root=self.pptx_root,
            talk=member.talk,
            found=ctx.artifacts,
            pptx_record=self.db.talk_deck(member.talk),
            path=member.path,
        )
        extracted_source = member.ret.get("slide_source") == "video_extracted"
        video_extracted = ctx.artifacts.pdf_is_video_extracted or extracted_source
        built = LedgerBuilder(
            ret=member.ret,
            version=member.version,
            path=member.path,
            catalog=self.catalog,
            inspection=inspection,
            evidence=evidence,
            video_extracted=video_extracted,
            talk=member.talk,
        ).build()
        return built.observations, lambda talk: stamp_metadata(built, talk)

    def member_talk(self, member: Member, stamp: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The member's new talk record and its report row."""
        receipt = payload_sha256(member.ret)
        warnings: list[dict[str, str]] = []
        if member.status.startswith("skipped_"):
            result = MergeResult(dict(member.talk), "status_only")
        else:
            warnings += _processed_date_warning(member, stamp)
            observations, stamp_citations = self.ledger(member)
            result = merge_processed(
                member.talk, member.ret, version=member.version, observations=observations
            )
            stamp_citations(result.talk)
            legacy = result.talk.get("pattern_observations")
            if member.version < 4 and isinstance(legacy, dict):
                infer_groups(self.catalog, legacy)  # only where exactly one group qualifies
            result.talk["processed_date"] = stamp
            result.merged.add("processed_date")
            self._generation(result, member)
            warnings += result.warnings
        talk = result.talk
        talk["status"] = member.status
        talk["_queue_claim"] = tracking.persist_write.complete_claim(
            member.claim,
            released_at=stamp,
            result_status=member.status,
            result_payload_sha256=receipt,
        )
        result.merged.update({"status", "_queue_claim"})
        nested = talk.get("pattern_observations")
        current = member.generation["status"] == scoring_generation.CURRENT
        row = {
            "cleared_fields": sorted(result.cleared),
            "filename": member.filename,
            "merge_contract": result.contract,
            "merged_fields": sorted(result.merged),
            "opportunity_coverage_identity": nested.get("opportunity_coverage_identity")
            if current and isinstance(nested, dict)
            else None,
            "pattern_score": talk.get("pattern_score")
            if not member.status.startswith("skipped_")
            else None,
            "pattern_scoring_generation": member.generation,
            "result_payload_sha256": receipt,
            "return_schema_version": member.version,
            "status": member.status,
            "talk_schema_version": talk.get("schema_version", 1),
            "warnings": warnings,
        }
        return talk, row

    def _generation(self, result: MergeResult, member: Member) -> None:
        talk = result.talk
        generation = member.generation
        talk["pattern_scoring_generation_status"] = generation["status"]
        talk["pattern_scoring_generation_reasons"] = list(generation["reasons"])
        result.merged.update(
            {"pattern_scoring_generation_status", "pattern_scoring_generation_reasons"}
        )
        if generation["status"] == scoring_generation.CURRENT:
            talk["schema_version"] = CURRENT_TALK_SCHEMA
            talk["pattern_scoring_schema_version"] = CURRENT_SCORING_SCHEMA
            talk["pattern_catalog_fingerprint"] = self.catalog.fingerprint
            result.merged.update(
                {"schema_version", "pattern_scoring_schema_version", "pattern_catalog_fingerprint"}
            )
            return
        for name in ("pattern_scoring_schema_version", "pattern_catalog_fingerprint"):
            if name in talk:
                del talk[name]  # mutually exclusive with legacy_unbaselineable
                result.merged.add(name)
        if talk.get("schema_version") == CURRENT_TALK_SCHEMA:
            talk["schema_version"] = 4  # only a current v5 result is talk schema 5
            result.merged.add("schema_version")
        result.warnings.append(
            {
                "code": "legacy_unbaselineable",
                "message": "replay-only result: excluded from current baselines ("
                + ", ".join(generation["reasons"])
                + ")",
                "path": member.path,
            }
        )


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
            return _persist_session(request, catalog, stamp, current)
    except tracking.DatabaseRefusal as refusal:
        raise database_error(refusal, request.database) from None
    except Refusal as refusal:
        # Owner-write and writer refusals (candidate_invalid, input_changed, lock_unavailable)
        # come without a next step; nothing was written, so the next step is always the same.
        refusal.context.setdefault("hint", OWNER_WRITE_HINTS.get(refusal.code, DEFAULT_HINT))
        raise


def _validated_members(
    request: PersistRequest, catalog: Catalog, read: Any
) -> tuple[Database, Path, list[Member]]:
    """The database view, the vault root and the batch members, once the batch validated."""
    if read.assessment is None or read.assessment.root_version != 1:
        raise Refusal(
            "database_requires_migration",
            "persist writes only a current (schema 1) tracking database",
            '$["schema_version"]',
            hint="run `rvault-db migrate DB` (dry run, then --apply) first",
        )
    db = from_read(read, request.database)
    vault_root = request.vault_root or request.database.parent
    if not vault_root.is_dir():
        raise Refusal(
            "vault_root_invalid",
            "the vault root is not a directory",
            str(vault_root),
            hint="pass --vault-root DIR (the directory holding transcripts/ and slides/)",
        )
    report = validate_batch(
        request.returns,
        db=db,
        catalog=catalog,
        vault_root=vault_root,
        catalog_label=_catalog_label(request),
    )
    if not report["ok"]:
        _refuse_persisted(report, db)
        _refuse_invalid(report)
    _call(request.fault, "validated")
    return db, vault_root, _members(request.returns, db, report, read.database["talks"])


def _persist_session(
    request: PersistRequest, catalog: Catalog, stamp: str, current: Any
) -> dict[str, Any]:
    read = current.result
    db, vault_root, members = _validated_members(request, catalog, read)
    _gate(members, read.database["talks"], stamp)
    persister = _Persister(request, catalog, db, vault_root)
    replacements: dict[int, dict[str, Any]] = {}
    rows = []
    for member in members:
        talk, row = persister.member_talk(member, stamp)
        replacements[member.index] = talk
        rows.append(row)
        _call(request.fault, f"merged:{member.filename}")
    candidate, data = tracking.persist_write.candidate_bytes(read, replacements)
    write = current.install(data, fault=request.fault)  # None for a dry run
    baseline = tracking.persist_write.post_batch_baseline(
        candidate["talks"], as_of=stamp, catalog_fingerprint=catalog.fingerprint
    )
    first = members[0].claim
    outcome = current.outcome(data, write, dry_run_state=DRY_RUN_STATE)
    dry_run = write is None
    goals = tracking.improvement_goals(candidate)
    return {
        "apply_requested": outcome["apply_requested"],
        "batch": {
            "batch_id": str(first.get("batch_id")),
            "claimed_at": first.get("claimed_at"),
            "member_count": len(members),
            "run_id": str(first.get("run_id")),
        },
        "catalog": {**catalog.summary(), "source": _catalog_label(request)},
        "claims_closed": [_closed_claim(replacements[m.index], m) for m in members],
        "current_adherence_baseline": baseline,
        "database_written": outcome["database_written"],
        "durability_state": outcome["durability_state"],
        "goals_command": _goals_command(request, stamp)
        if any(g["writes"] for g in goals)
        else None,
        "improvement_goals": goals,
        "input_sha256": outcome["input_sha256"],
        "mode": outcome["mode"],
        "next_command": _next_command(request, read.sha256) if dry_run else None,
        "ok": True,
        "output_sha256": outcome["output_sha256"],
        "processed_date": stamp,
        "schema_version": REPORT_VERSION,
        "talks": sorted(rows, key=lambda r: r["filename"]),
        "warnings": outcome["warnings"],
    }


def _catalog_label(request: PersistRequest) -> str:
    return "default" if request.catalog_dir is None else "custom"


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
