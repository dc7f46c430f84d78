"""``rvault-video validate MANIFEST --vault-root DIR``: the referential check.

It also re-checks the bytes (v4): a recording or PDF replaced, removed or
unreadable since extraction is refused as ``manifest_stale`` with the report.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli


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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: the validator pulls in jsonschema, which `extract` never needs.
    from rvault_video_extraction.api import read_manifest

    if not args.vault_root.is_dir():
        raise contract_cli.Refusal(
            "vault_root_missing", "--vault-root is not a directory", str(args.vault_root)
        )
    report = read_manifest(
        args.manifest, vault_root=args.vault_root, expected_video_id=args.video_id
    )
    document = report.to_dict()
    if report.status == "recovery_pending":  # a kill tore the bundle: not a hash mismatch
        raise contract_cli.Refusal(
            "bundle_recovery_pending",
            report.issues[0].message,
            str(args.manifest),
            report=document,
            hint="run the interrupted rvault-video extract again (it settles the bundle first, "
            "then extracts), then validate",
        )
    if not report.usable:
        code = "manifest_unusable" if report.status in ("future", "invalid") else "manifest_invalid"
        raise contract_cli.Refusal(
            code, f"the manifest is {report.status}", str(args.manifest), report=document
        )
    if report.status == "stale":
        raise contract_cli.Refusal(
            "manifest_stale",
            "the recording or a PDF no longer has the bytes the manifest recorded: "
            + "; ".join(issue.message for issue in report.issues),
            str(args.manifest),
            report=document,
            hint="extract again from the recording you mean (rvault-video extract VIDEO OUTDIR "
            "VIDEO_ID --force, with your checked --region ... --region-verified)",
        )
    if args.require_trusted and not report.trusted:
        raise contract_cli.Refusal(
            "manifest_untrusted",
            "no trusted slide_region artifact (review required)",
            str(args.manifest),
            report=document,
        )
    document["ok"] = True
    contract_cli.emit(document)
    return contract_cli.EXIT_OK
