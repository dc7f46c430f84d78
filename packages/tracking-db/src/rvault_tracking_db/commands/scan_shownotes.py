"""``rvault-db scan-shownotes DB [--apply]``: the shownotes scan/import report v3.

Dry-run is the default and never writes. ``--apply`` installs the add and
update candidates in one hash-bound transaction under the writer lock;
review-required entries never mutate. Disabled, remote and ``none`` sources
return a structured no-op without reading any Markdown.
"""

from __future__ import annotations

from typing import Any

from rvault_tracking_db.commands.lazy import lazy_handler


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "scan-shownotes",
        help="scan the speaker's shownotes site and add/fill talks (report v3)",
        description="Scan local Jekyll/Hugo/Eleventy/Astro shownotes; dry-run unless --apply.",
    )
    parser.add_argument("database", help="path of tracking-database.json")
    parser.add_argument("--apply", action="store_true", help="install add/update candidates")
    parser.set_defaults(
        handler=lazy_handler("rvault_tracking_db.commands.scan_shownotes_run", "run_scan")
    )
