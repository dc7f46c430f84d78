"""``rvault-db scan-shownotes DB [--apply --expected-sha256 HEX]``: report v3.

Dry-run is the default and never writes or locks. ``--apply`` installs the
add and update candidates in one transaction bound to the dry run's digest;
review-required entries never mutate. Disabled, remote and ``none`` sources
return a structured no-op without reading any Markdown.
"""

from __future__ import annotations

import argparse
from typing import Any

from rvault_contracts.cli import emit, finish

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.apply_protocol import ApplyRequest
from rvault_tracking_db.shownotes.run import scan_shownotes


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "scan-shownotes",
        help="scan the speaker's shownotes site and add/fill talks (report v3)",
        description="Scan local Jekyll/Hugo/Eleventy/Astro shownotes; dry-run unless --apply.",
    )
    parser.add_argument("database", help="path of tracking-database.json")
    apply_protocol.add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    emit(scan_shownotes(args.database, ApplyRequest.from_args(args)))
    return finish(0)
