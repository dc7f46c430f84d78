"""``rvault-video validate MANIFEST --vault-root DIR``: the referential check.

It also re-checks the bytes (v4): a recording or PDF replaced, removed or
unreadable since extraction is refused as ``manifest_stale`` with the report.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.manifest_check import ValidateRequest, validate


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "validate",
        help=(
            "validate a video manifest as one referential unit (flags, counts, paths, PDFs) "
            "and re-check the recording and PDFs against their recorded digests"
        ),
    )
    parser.add_argument("manifest", type=Path, metavar="MANIFEST")
    parser.add_argument("--vault-root", type=Path, required=True, help="the configured vault root")
    parser.add_argument("--video-id", help="the talk's youtube_id the manifest must belong to")
    parser.add_argument(
        "--require-trusted",
        action="store_true",
        help="refuse unless the manifest trusts a verified manual slide_region",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    request = ValidateRequest(args.manifest, args.vault_root, args.video_id, args.require_trusted)
    contract_cli.emit(validate(request))
    return contract_cli.EXIT_OK
