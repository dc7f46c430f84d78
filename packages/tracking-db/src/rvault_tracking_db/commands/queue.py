"""``rvault-db queue DB inspect|normalize|claim|recover``.

The queue commands are the only writers of ``_queue_claim`` and
``_queue_claim_history``. stdout is one queue report (contract
``queue-report`` v1) or one refusal; a refusal writes nothing.
"""

from __future__ import annotations

from typing import Any

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.commands.lazy import lazy_handler

_RUN = "rvault_tracking_db.commands.queue_run"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "queue",
        help="queue claims: inspect, normalize source capabilities, claim a batch, recover a batch",
        description="Queue claims v5 with baselines v2, recovery and source capabilities.",
    )
    parser.add_argument("database", help="path of tracking-database.json")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action", required=True)

    inspect = actions.add_parser("inspect", help="read-only view of statuses, claims v1-v5, epochs")
    inspect.set_defaults(handler=lazy_handler(_RUN, "run_inspect"))

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
    normalize.set_defaults(handler=lazy_handler(_RUN, "run_normalize"))

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
    claim.set_defaults(handler=lazy_handler(_RUN, "run_claim"))

    recover = actions.add_parser("recover", help="close a stranded batch and restore statuses")
    recover.add_argument("--run-id", help="run identifier of the batch (required)")
    recover.add_argument("--batch-id", help="batch identifier (required)")
    recover.add_argument("--now", help="timezone-aware release time (default: current UTC time)")
    apply_protocol.add_arguments(recover)
    recover.set_defaults(handler=lazy_handler(_RUN, "run_recover"))
