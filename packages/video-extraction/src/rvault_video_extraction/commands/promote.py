"""``rvault-video promote MANIFEST --vault-root VAULT``: a trusted crop becomes the deck."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.promote import PromoteRequest, promote


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "promote",
        help="copy a trusted slide_region PDF to slides/{id}.pdf and print its slides_local_path",
        description=(
            "Validate MANIFEST (schema v4) as one unit and, only if it trusts a verified manual "
            "slide_region with review_required false, copy that PDF to "
            "VAULT/slides/{id}.pdf through the writer protocol. stdout reports "
            "slides_local_path, to be recorded with the tracking database owner."
        ),
    )
    parser.add_argument("manifest", type=Path, metavar="MANIFEST")
    parser.add_argument("--vault-root", type=Path, required=True, help="vault storage root")
    parser.add_argument(
        "--replace",
        action="store_true",
        help="overwrite a different existing slides/{id}.pdf (refused without it)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    report = promote(PromoteRequest(args.manifest, args.vault_root, args.replace))
    contract_cli.progress(f"promoted to {report['slides_local_path']}")
    contract_cli.emit(report)
    return contract_cli.EXIT_OK
