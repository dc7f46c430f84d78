"""Validate a batch of worker returns against the database, catalog and vault.

One report, field by field: per return ``ok``, its errors (JSON path, stable
code, message) and its scoring generation, plus batch-level errors. Rule
modules each own one part of the contract; this module sequences them so a
return that cannot be tied to its talk and claim is not checked further
(those deeper findings would be noise).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Collector, Issue, render
from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import json_path as child
from rvault_contracts.suggest import did_you_mean
from rvault_tracking_db import api as tracking

from rvault_returns_persistence import scoring_generation
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.checks.deck_audit import Recomputations, carries_audit, deck_file
from rvault_returns_persistence.checks.protocol import check_return
from rvault_returns_persistence.context import return_context
from rvault_returns_persistence.database import (
    Database,
    Snapshot,
    claim_registered,
    claim_schema_problems,
)
from rvault_returns_persistence.refusals import HintedRefusal
from rvault_returns_persistence.vocabulary import STATUSES

REPORT_VERSION = 1
KNOWN_RETURN_VERSIONS = (1, 2, 3, 4, 5)


class BatchShapeError(HintedRefusal):
    """The document is not a batch of returns (a ``cli-failure`` refusal at ``$``)."""

    HINT = "pass an array of returns, one return object, or an object keyed by filename"


def iter_batch(document: Any) -> Iterator[tuple[str, str | None, Any]]:
    """(JSON path, object key, return) for an array, one return, or an object keyed by filename."""
    if isinstance(document, list):
        for index, item in enumerate(document):
            yield child("$", index), None, item
    elif isinstance(document, dict) and "filename" in document:
        yield "$", None, document
    elif isinstance(document, dict):
        for key, item in document.items():
            yield child("$", key), key, item
    else:
        raise BatchShapeError(
            "batch_invalid", "the batch is an array of returns or an object of returns", "$"
        )


@dataclass(frozen=True)
class Result:
    path: str
    filename: str | None
    version: int | None
    status: str | None
    issues: list[Issue]
    generation: dict[str, Any]

    @property
    def ok(self) -> bool:
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        return {
            "errors": render(self.issues),
            "filename": self.filename,
            "ok": self.ok,
            "path": self.path,
            "pattern_scoring_generation": self.generation,
            "return_schema_version": self.version,
            "status": self.status,
        }


def return_version(ret: dict[str, Any], issues: Collector, path: str) -> int | None:
    if "return_schema_version" not in ret:
        return 1  # historical returns without a version keep the legacy v1 contract
    value = ret["return_schema_version"]
    if not is_int(value) or value not in KNOWN_RETURN_VERSIONS:
        issues.add(
            "return_version_unknown",
            child(path, "return_schema_version"),
            f"return_schema_version {value!r} is not a known version (1-5)",
        )
        return None
    return value


def _claim_compatible(
    ctx_issues: Collector, path: str, claim: dict[str, Any], version: int, filename: str
) -> bool:
    problems = tracking.claim_issues(claim, path="$._queue_claim", filename=filename)
    for problem in problems:
        code = (
            "claim_version_unknown"
            if problem.code == "unsupported_claim_version"
            else "claim_invalid"
        )
        ctx_issues.add(
            code, child(path, "queue_claim"), f"active claim {problem.path}: {problem.message}"
        )
    if problems:
        return False
    version_of_claim = claim.get("schema_version", 1)
    for problem in claim_schema_problems(claim, version_of_claim):
        ctx_issues.add("claim_invalid", child(path, "queue_claim"), f"active claim {problem}")
        return False
    allowed = tracking.authorized_return_versions(claim)
    if version not in allowed:
        ctx_issues.add(
            "claim_return_incompatible",
            child(path, "return_schema_version"),
            f"the active claim (schema v{claim.get('schema_version')}) "
            f"authorizes only return versions {list(allowed)}",
        )
        return False
    return True


def validate_return(
    path: str,
    ret: Any,
    *,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    seen: set[str],
    recomputations: Recomputations | None = None,
) -> Result:
    """One return's result: tied to its talk and active claim, then its version's rules.

    A return that cannot be tied to its talk and claim is checked no further
    (the deeper findings would be noise).
    """
    issues = Collector()
    if not isinstance(ret, dict):
        issues.add("return_not_object", path, "a return is a JSON object")
        generation = scoring_generation.generation(ret, None, None, False)
        return Result(path, None, None, None, issues.items, generation)
    filename = ret.get("filename") if isinstance(ret.get("filename"), str) else None
    status = ret.get("status") if isinstance(ret.get("status"), str) else None
    version = return_version(ret, issues, path)
    talk = _talk_of(path, ret, db, seen, issues)
    claim = _claim_of(path, ret, talk, version, issues) if talk is not None else None
    if talk is not None and claim is not None and version is not None:
        ctx = return_context(
            path, ret, version=version, status=status, talk=talk, claim=claim, db=db,
            catalog=catalog, vault_root=vault_root, issues=issues, recomputations=recomputations,
        )  # fmt: skip
        check_return(ctx, db.root.get("config"))
    ordered = issues.ordered()
    generation = scoring_generation.generation(ret, version, status, not ordered, catalog)
    return Result(path, filename, version, status, ordered, generation)


def _talk_of(
    path: str, ret: dict[str, Any], db: Database, seen: set[str], issues: Collector
) -> dict[str, Any] | None:
    """The one talk the return's filename names, once per batch (None: the issue is added)."""
    filename = ret.get("filename")
    if not isinstance(filename, str):
        issues.add(
            "missing_required_block", child(path, "filename"), "filename names the talk's .md file"
        )
        return None
    if filename in seen:
        issues.add(
            "duplicate_return",
            child(path, "filename"),
            f"{filename} appears more than once in the batch",
        )
    seen.add(filename)
    talk = db.talk(filename)
    if talk is None:
        issues.add(
            "talk_not_found",
            child(path, "filename"),
            f"{filename} is not exactly one talk of the database"
            + did_you_mean(filename, db.talks),
        )
        return None
    if ret.get("status") not in STATUSES:
        issues.add(
            "status_unknown", child(path, "status"), f"status must be one of {list(STATUSES)}"
        )
    return talk


def _claim_of(
    path: str, ret: dict[str, Any], talk: dict[str, Any], version: int | None, issues: Collector
) -> dict[str, Any] | None:
    """The talk's active claim when it authorizes the return's version (None: the issue)."""
    claim = tracking.active_claim(talk)
    if claim is None:
        persisted = already_persisted(talk, ret)
        if persisted is not None:
            issues.add(ALREADY_PERSISTED, child(path, "queue_claim"), persisted)
        else:
            issues.add(
                "claim_not_active",
                child(path, "queue_claim"),
                "the talk has no active (claimed) queue claim",
            )
        return None
    if version is None or not _claim_compatible(
        issues, path, dict(claim), version, ret["filename"]
    ):
        return None
    return dict(claim)


def _batch_issues(db: Database, results: list[Result]) -> list[Issue]:
    """Returns must cover exactly the live members of every claimed batch they belong to."""
    issues: list[Issue] = []
    batches: dict[tuple[str, str], set[str]] = {}
    for result in results:
        talk = db.talk(result.filename)
        claim = tracking.active_claim(talk) if talk is not None else None
        if claim is None:
            continue
        key = (str(claim.get("run_id")), str(claim.get("batch_id")))
        batches.setdefault(key, set()).add(result.filename or "")
    if len(batches) > 1:
        issues.append(
            Issue(
                "batch_mixed_identity",
                "$",
                f"the returns belong to {len(batches)} different batches",
            )
        )
    for (run_id, batch_id), names in sorted(batches.items()):
        members = set(tracking.batch_members(db.root, run_id, batch_id))
        if members != names:
            missing = sorted(members - names)
            issues.append(
                Issue(
                    "batch_membership_mismatch",
                    "$",
                    f"batch {run_id}/{batch_id} needs returns for "
                    f"exactly its live members; missing {missing}",
                )
            )
    if batches:
        issues.extend(_epoch_issues(db, set(batches)))
    return issues


def _claim_conforms(claim: Any) -> bool:
    """A stored claim that breaks its registered contract is reported on its return
    (``claim_invalid``); the epoch reader assumes well-formed claims, so it never sees one."""
    if not isinstance(claim, dict):
        return False
    version = claim.get("schema_version", 1)
    if not is_int(version) or not claim_registered(version):
        return False
    return not claim_schema_problems(claim, version)


def _epoch_issues(db: Database, batches: set[tuple[str, str]]) -> list[Issue]:
    """Claim v3-v5 batches share one claimed_at and one baseline excluding exactly the batch.

    The queue owner's reader decides (``rvault_tracking_db.api.epoch_issues``); a batch split
    over several claimed_at stamps is reported too, because it cannot be one epoch.
    """
    issues: list[Issue] = []
    grouped: dict[tuple[str, str], list[Any]] = {}
    for (run_id, batch_id, _stamp), members in tracking.epochs(db.root).items():
        if (run_id, batch_id) in batches:
            grouped.setdefault((run_id, batch_id), []).extend(
                m
                for m in members
                if m.location == "current"
                and m.claim.get("state") == "claimed"
                and _claim_conforms(m.claim)
            )
    for (run_id, batch_id), members in sorted(grouped.items()):
        for problem in tracking.epoch_issues(members):
            issues.append(
                Issue("batch_epoch_invalid", "$", f"batch {run_id}/{batch_id}: {problem.message}")
            )
    return issues


MEMBER_WARNING_CODES = frozenset({"batch_membership_mismatch"})


def _member_returns(document: Any, member: str) -> list[tuple[str, str | None, Any]]:
    """The one member's return(s) of a document (a lone return or a whole batch)."""
    chosen = [
        item
        for item in iter_batch(document)
        if isinstance(item[2], dict) and item[2].get("filename") == member
    ]
    if not chosen:
        raise Refusal(
            "member_not_found",
            f"the returns hold no return for {member!r}",
            "$",
            hint="pass the filename of the talk this return is for (its `filename` field)",
        )
    return chosen


def validate_batch(
    document: Any,
    *,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    catalog_label: str,
    member: str | None = None,
) -> dict[str, Any]:
    """The validation report; with ``member``, one batch member's return checked on its own
    (the batch-membership rule becomes a warning: persist still demands the whole batch)."""
    seen: set[str] = set()
    results: list[Result] = []
    items = list(iter_batch(document) if member is None else _member_returns(document, member))
    recomputations = _start_recomputations(items, db, vault_root)
    try:
        for path, key, ret in items:
            results.append(_checked(path, key, ret, db, catalog, vault_root, seen, recomputations))
    finally:
        recomputations.close()
    return _report(results, db, catalog, catalog_label, member)


def _start_recomputations(
    items: list[tuple[str, str | None, Any]], db: Database, vault_root: Path
) -> Recomputations:
    """Start the deck re-extraction of every return that carries a native deck audit."""
    roots = tracking.SourceRoots.from_config(vault_root, db.root.get("config"))
    decks = []
    for _, _, ret in items:
        talk = db.talk(ret.get("filename")) if carries_audit(ret) else None
        deck = deck_file(db.talk_deck(talk), roots.pptx_source_dir, vault_root) if talk else None
        if deck is not None:
            decks.append(deck)
    recomputations = Recomputations(min(len(decks), os.cpu_count() or 1, 4))
    for deck in decks:
        recomputations.start(deck)
    return recomputations


def _checked(
    path: str,
    key: str | None,
    ret: Any,
    db: Database,
    catalog: Catalog,
    vault_root: Path,
    seen: set[str],
    recomputations: Recomputations,
) -> Result:
    """One return's result, with the object-batch key rule applied."""
    result = validate_return(
        path,
        ret,
        db=db,
        catalog=catalog,
        vault_root=vault_root,
        seen=seen,
        recomputations=recomputations,
    )
    if result.filename is not None and key is not None and key != result.filename:
        issues = [
            *result.issues,
            Issue("batch_key_mismatch", path, "an object batch is keyed by each return's filename"),
        ]
        generation = scoring_generation.generation(
            ret, result.version, result.status, False, catalog
        )
        result = Result(path, result.filename, result.version, result.status, issues, generation)
    return result


def _report(
    results: list[Result], db: Database, catalog: Catalog, catalog_label: str, member: str | None
) -> dict[str, Any]:
    """The returns-validation-report of the checked returns plus the batch rules."""
    batch_errors = _batch_issues(db, results)
    batch_warnings: list[Issue] = []
    if member is not None:
        batch_warnings = [i for i in batch_errors if i.code in MEMBER_WARNING_CODES]
        batch_errors = [i for i in batch_errors if i.code not in MEMBER_WARNING_CODES]
    ok = bool(results) and not batch_errors and all(r.ok for r in results)
    if not results:
        batch_errors.append(Issue("batch_empty", "$", "the batch holds no returns"))
    report: dict[str, Any] = {
        "batch_errors": render(sorted(batch_errors, key=Issue.sort_key)),
        "batch_warnings": render(sorted(batch_warnings, key=Issue.sort_key)),
        "catalog": {**catalog.summary(), "source": catalog_label},
        "ok": ok,
        "pattern_scoring_generations": [
            {"filename": r.filename, "path": r.path, **r.generation} for r in results
        ],
        "return_count": len(results),
        "returns": [r.to_dict() for r in results],
        "schema_version": REPORT_VERSION,
        "valid_count": sum(r.ok for r in results),
    }
    if member is not None:
        report["member"] = member
    if not ok:
        report["hint"] = (
            "fix each error at its path (codes: the package README), then validate again; "
            "`rvault-returns catalog show ID` prints an entry's gates"
        )
        report["error"] = {
            "code": "returns_invalid",
            "message": f"{len(results) - report['valid_count']} "
            f"of {len(results)} returns are invalid"
            + (f"; {len(batch_errors)} batch errors" if batch_errors else ""),
            "path": None,
        }
    return report


ALREADY_PERSISTED = "return_already_persisted"


def already_persisted(talk: dict[str, Any], ret: Any) -> str | None:
    """Why a return whose claim is no longer live was already persisted, if it was.

    The talk's stored claim is the return's own batch (same run and batch)
    closed as ``completed``: persisting it again is not a claim to fix but
    nothing to do, and the person needs to find the receipt it left.
    """
    stored, supplied = (
        talk.get("_queue_claim"),
        ret.get("queue_claim") if isinstance(ret, dict) else None,
    )
    if not isinstance(stored, dict) or not isinstance(supplied, dict):
        return None
    same_batch = all(stored.get(k) == supplied.get(k) for k in ("run_id", "batch_id"))
    if stored.get("state") != "completed" or not same_batch:
        return None
    return (
        f"batch ({stored.get('run_id')}, {stored.get('batch_id')}) was already persisted at "
        f"{stored.get('released_at')}: {talk.get('filename')} was processed "
        f"{talk.get('processed_date')}, receipt result_payload_sha256 "
        f"{stored.get('result_payload_sha256')} (rvault-db read DB shows it)"
    )


# --------------------------------------------------------------------------- persist's gate

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

    The validate command's rules (:func:`validate_batch`), then what only
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
    claim, a processed_date timestamp that is not the batch stamp."""
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
    for member in members:
        _refuse_other_date(member, stamp)


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
