"""``rvault-db set-identity DB --talk F --capture FILE [--speaker S]... [--recorded-date D]``.

Stores a reviewed capture entry as the talk's ``source_identity`` through the
``set_source_identity`` lane (dry run by default, ``--apply --expected-sha256``
to write); prints ``db-source-report`` v1.
"""

from __future__ import annotations

import argparse
from typing import Any

from rvault_tracking_db import apply_protocol


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "set-identity",
        help="store a reviewed capture entry as a talk's source_identity (dry run by default)",
        description=(
            "Takes the capture entry of the talk's own recording (rvault-db capture-identity), "
            "adds the reviewer's delivery claims (speakers, recorded date: never taken from the "
            "uploader or the upload date) and runs one set_source_identity lane change."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.add_argument("--talk", required=True, metavar="FILENAME")
    parser.add_argument("--capture", required=True, metavar="FILE")
    parser.add_argument("--speaker", action="append", default=[], help="a speaker (repeat)")
    parser.add_argument("--recorded-date", metavar="YYYY-MM-DD")
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_contracts.cli import emit, finish

    from rvault_tracking_db.apply_protocol import ApplyRequest
    from rvault_tracking_db.sources.identity_shortcut import IdentityRequest
    from rvault_tracking_db.sources.run import run_sources

    request = IdentityRequest(args.talk, args.capture, tuple(args.speaker), args.recorded_date)
    emit(
        run_sources(
            args.database, request.build, ApplyRequest.from_args(args), command="set-identity"
        )
    )
    return finish(0)
