"""``rvault-db queue DB inspect|normalize|claim|recover``.

The queue commands are the only writers of ``_queue_claim`` and
``_queue_claim_history``. stdout is one queue report (contract
``queue-report`` v1) or one refusal; a refusal writes nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.cli import Refusal, emit, finish

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.apply_protocol import ApplyRequest
from rvault_tracking_db.queue import run
from rvault_tracking_db.queue.claim import ClaimRequest
from rvault_tracking_db.queue.timestamps import canonicalize, parse_aware, utc_now


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "queue",
        help="queue claims: inspect, normalize source capabilities, claim a batch, recover a batch",
        description="Queue claims v5 with baselines v2, recovery and source capabilities.",
    )
    parser.add_argument("database", help="path of tracking-database.json")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action", required=True)

    inspect = actions.add_parser("inspect", help="read-only view of statuses, claims v1-v5, epochs")
    inspect.set_defaults(handler=handle_inspect)

    normalize = actions.add_parser(
        "normalize",
        help="derive source_capabilities; legacy statuses",
        description=(
            "Dry-run by default: prints the changes, input_sha256 and the output_sha256 of the "
            "bytes --apply would install. --apply requires --expected-sha256 with the "
            "dry-run's input_sha256. Needs database schema 1."
        ),
    )
    apply_protocol.add_arguments(normalize)
    normalize.set_defaults(handler=handle_normalize)

    claim = actions.add_parser("claim", help="claim a batch under schema v5 with one baseline")
    claim.add_argument("--run-id", help="run identifier (required)")
    claim.add_argument("--batch-id", help="batch identifier (required)")
    claim.add_argument(
        "--now",
        help="timezone-aware ISO-8601 claim time (default: current UTC time; pass the dry "
        "run's claimed_at to apply exactly what it showed, or to replay a claim)",
    )
    claim.add_argument("--limit", type=int, help="claim up to N claimable talks in database order")
    claim.add_argument(
        "--talk",
        action="extend",
        nargs="+",
        metavar="FILENAME",
        help="claim exactly these filenames (repeatable)",
    )
    claim.add_argument(
        "--catalog-fingerprint",
        help="pattern catalog SHA-256 of the baseline (default: the one the current talks name)",
    )
    apply_protocol.add_arguments(claim)
    claim.set_defaults(handler=handle_claim)

    recover = actions.add_parser("recover", help="close a stranded batch and restore statuses")
    recover.add_argument("--run-id", help="run identifier of the batch (required)")
    recover.add_argument("--batch-id", help="batch identifier (required)")
    recover.add_argument("--now", help="timezone-aware release time (default: current UTC time)")
    apply_protocol.add_arguments(recover)
    recover.set_defaults(handler=handle_recover)


def _required(value: str | None, flag: str) -> str:
    if value is None or not value.strip():
        raise Refusal("missing_argument", f"{flag} is required", flag)
    return value


def _now(value: str | None, flag: str = "--now") -> str:
    """``--now`` in its canonical UTC spelling, refused when naive, unrepresentable or future."""
    if value is None:
        return utc_now()
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


def _claim_request(args: argparse.Namespace) -> ClaimRequest:
    run_id = _required(args.run_id, "--run-id")
    batch_id = _required(args.batch_id, "--batch-id")
    claimed_at = _now(args.now)
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
    return ClaimRequest(
        run_id=run_id,
        batch_id=batch_id,
        claimed_at=claimed_at,
        limit=args.limit,
        talks=tuple(args.talk) if args.talk else None,
        catalog_fingerprint=args.catalog_fingerprint,
    )


def handle_inspect(args: argparse.Namespace) -> int:
    emit(run.inspect(args.database))
    return finish(0)


def handle_normalize(args: argparse.Namespace) -> int:
    emit(run.normalize(args.database, ApplyRequest.from_args(args)))
    return finish(0)


def handle_claim(args: argparse.Namespace) -> int:
    request = _claim_request(args)
    emit(run.claim(args.database, ApplyRequest.from_args(args), request))
    return finish(0)


def handle_recover(args: argparse.Namespace) -> int:
    request = run.RecoverRequest(
        _required(args.run_id, "--run-id"), _required(args.batch_id, "--batch-id"), _now(args.now)
    )
    emit(run.recover(args.database, ApplyRequest.from_args(args), request))
    return finish(0)
