"""The queue actions behind ``rvault-db queue`` (imported on use; see ``lazy``)."""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.cli import Refusal, emit, finish
from rvault_contracts.writer import WriteReport

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.assessment.trouble import by_talk
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.queue import store
from rvault_tracking_db.queue.claim import ClaimRequest, plan_claim
from rvault_tracking_db.queue.inspect import inspect_queue
from rvault_tracking_db.queue.normalize import plan_normalize
from rvault_tracking_db.queue.recover import plan_recover
from rvault_tracking_db.queue.timestamps import canonicalize, parse_aware, utc_now
from rvault_tracking_db.reader import read_database

REPORT_VERSION = 1


def _base(command: str, result: Any) -> dict[str, Any]:
    return {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "command": command,
        "database_path": result.database_path,
        "root_schema_version": store.root_version(result),
    }


def _required(value: str | None, flag: str) -> str:
    if value is None or not value.strip():
        raise Refusal("missing_argument", f"{flag} is required", flag)
    return value


def _now(value: str | None, flag: str = "--now") -> str:
    if value is None:
        raise Refusal("missing_argument", f"{flag} is required", flag)
    if parse_aware(value) is None:
        raise Refusal(
            "now_not_timezone_aware",
            f"{flag} must be a timezone-aware ISO-8601 timestamp (e.g. 2026-07-31T18:00:00+00:00)",
            flag,
        )
    try:
        canonical = canonicalize(value)
    except OverflowError:
        # e.g. 9999-12-31T23:59:59-23:59: aware, but with no UTC spelling.
        raise Refusal(
            "now_not_timezone_aware",
            f"{flag} is outside the representable UTC range (years 1-9999)",
            flag,
        ) from None
    assert canonical is not None
    if parse_aware(canonical) > parse_aware(utc_now()):  # type: ignore[operator]
        raise Refusal(
            "now_in_future",
            f"{flag} {value} is later than the current time {utc_now()}",
            flag,
            hint="pass the current time, e.g. --now $(date -u +%Y-%m-%dT%H:%M:%S+00:00)",
        )
    return canonical


def run_inspect(args: argparse.Namespace) -> int:
    result = read_database(args.database)
    assert result.database is not None
    report = _base("inspect", result)
    report["input_sha256"] = result.sha256
    report.update(inspect_queue(result.database))
    emit(report)
    return finish(0)


def run_normalize(args: argparse.Namespace) -> int:
    with session(args.database, ApplyRequest.from_args(args)) as current:
        result = current.result
        assert result.database is not None
        current.require_current_root("queue normalize")
        roots = SourceRoots.from_config(current.vault_root, result.database.get("config"))
        assert result.assessment is not None
        trouble = by_talk(result.assessment.warnings)
        outcome = plan_normalize(result.database, roots, trouble)
        planned = None
        if outcome.database is not None:
            planned = store.candidate_bytes(result, outcome.database, changed=outcome.changed)
        write = current.install(planned) if planned is not None else None
    report = _base("normalize", result)
    report.update(_outcome(current, planned, write))
    report["change_count"] = len(outcome.changes)
    report["changes"] = outcome.changes
    report["review"] = outcome.review
    report["skipped"] = outcome.skipped
    emit(report)
    return finish(0)


def _outcome(current: Session, planned: bytes | None, write: WriteReport | None) -> dict[str, Any]:
    fields = current.outcome(planned, write, dry_run_state="dry_run")
    del fields["write"]
    return fields


def _nothing_claimable(skipped: list[dict[str, str]]) -> Refusal:
    reasons: dict[str, int] = {}
    for entry in skipped:
        reasons[entry["reason"]] = reasons.get(entry["reason"], 0) + 1
    why = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
    message = "no talk can be claimed: " + (
        f"the candidates were skipped ({why})"
        if why
        else "no talk is pending or needs-reprocessing without a live claim"
    )
    return Refusal(
        "nothing_to_claim",
        message,
        '$["talks"]',
        skipped=skipped,
        hint=(
            "run `rvault-db status DB` to see each talk's next action; a talk needs a "
            "registered source (`rvault-db sources`, `register-transcript`) and "
            "`rvault-db queue DB normalize` before it can be claimed"
        ),
    )


def run_claim(args: argparse.Namespace) -> int:
    run_id = _required(args.run_id, "--run-id")
    batch_id = _required(args.batch_id, "--batch-id")
    claimed_at = _now(args.now) if args.now is not None else utc_now()
    if args.limit is not None and args.talk:
        raise Refusal("selection_conflict", "use either --limit or --talk, not both", "--talk")
    if args.limit is None and not args.talk:
        raise Refusal(
            "selection_required",
            "name --limit N or at least one --talk",
            "--limit",
            hint="`rvault-db status DB` lists the talks whose next action is claim",
        )
    if args.limit is not None and args.limit < 1:
        raise Refusal("invalid_argument", "--limit must be a positive integer", "--limit")
    request = ClaimRequest(
        run_id=run_id,
        batch_id=batch_id,
        claimed_at=claimed_at,
        limit=args.limit,
        talks=tuple(args.talk) if args.talk else None,
        catalog_fingerprint=args.catalog_fingerprint,
    )
    # bind_late: an exact replay writes nothing, so a retry after a lost response
    # (still quoting the pre-claim digest) gets the stored claims back.
    with session(args.database, ApplyRequest.from_args(args), bind_late=True) as current:
        result = current.result
        assert result.database is not None
        current.require_current_root("queue claim")
        roots = SourceRoots.from_config(current.vault_root, result.database.get("config"))
        outcome = plan_claim(result.database, request, roots)
        if not outcome.members:
            raise _nothing_claimable(outcome.skipped)
        planned = None
        if outcome.database is not None:
            planned = store.candidate_bytes(result, outcome.database, changed=outcome.changed)
        write = current.install(planned) if planned is not None else None
    report = _base("claim", result)
    report.update(_outcome(current, planned, write))
    report.update(
        {
            "run_id": run_id,
            "batch_id": batch_id,
            "claimed_at": outcome.members[0][1]["claimed_at"],
            "replayed": outcome.replayed,
            "member_count": len(outcome.members),
            "members": [{"filename": name, "claim": claim} for name, claim in outcome.members],
            "adherence_baseline": outcome.baseline,
            "baseline_exclusions": [e.to_dict() for e in outcome.exclusions],
            "skipped": outcome.skipped,
        }
    )
    emit(report)
    return finish(0)


def run_recover(args: argparse.Namespace) -> int:
    run_id = _required(args.run_id, "--run-id")
    batch_id = _required(args.batch_id, "--batch-id")
    released_at = _now(args.now) if args.now is not None else utc_now()
    with session(args.database, ApplyRequest.from_args(args)) as current:
        result = current.result
        assert result.database is not None
        outcome = plan_recover(
            result.database, run_id=run_id, batch_id=batch_id, released_at=released_at
        )
        planned = store.candidate_bytes(result, outcome.database, changed=outcome.changed)
        write = current.install(planned)
    report = _base("recover", result)
    report.update(_outcome(current, planned, write))
    report.update(
        {
            "run_id": run_id,
            "batch_id": batch_id,
            "released_at": released_at,
            "released": outcome.released,
        }
    )
    emit(report)
    return finish(0)
