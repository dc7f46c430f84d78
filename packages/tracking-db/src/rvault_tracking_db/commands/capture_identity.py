"""``rvault-db capture-identity DB --out FILE [--replay DIR]``: yt-dlp metadata for review.

Networked and read-only towards the database: one yt-dlp request per distinct
active video, the answers written as a ``db-identity-capture`` v1 file (never
into the database). ``--replay DIR`` processes recorded yt-dlp info documents
(``DIR/<video_id>.info.json``) instead of asking YouTube. Needs the optional
extra ``rvault-tracking-db[capture]`` (yt-dlp).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "capture-identity",
        help="ask yt-dlp for each active video's provider facts; write a capture file",
        description=(
            "One yt-dlp metadata request per distinct active YouTube video; the provider "
            "facts (never speakers or recorded date) go to --out for review, the database is "
            "only read. Store a reviewed identity with `rvault-db set-identity`."
        ),
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.add_argument("--out", required=True, help="the capture file to write")
    parser.add_argument("--replay", metavar="DIR", help="recorded yt-dlp info documents")
    parser.add_argument("--captured-at", help="timestamp recorded (default: now, UTC)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rvault_contracts import cli as contract_cli

    from rvault_tracking_db.identity.capture_run import CaptureRequest, run_capture

    now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    request = CaptureRequest(args.database, args.out, args.captured_at or now, args.replay)
    contract_cli.emit(run_capture(request))
    return contract_cli.finish(contract_cli.EXIT_OK)
