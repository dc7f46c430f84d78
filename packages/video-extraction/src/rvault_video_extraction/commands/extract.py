"""``rvault-video extract VIDEO OUTDIR VIDEO_ID``: slides from a talk video."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.extract import ExtractRequest, extract, parse_region
from rvault_video_extraction.versioning import DEFAULT_FPS, DEFAULT_HASH_THRESHOLD, MAX_FPS, MIN_FPS


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "extract",
        help="sample a talk video, keep distinct slides, write two PDFs and manifest v4",
        description=(
            "Sample VIDEO at --fps (decoding only the frames the samples need), keep every "
            "distinct stable slide, and write VIDEO_ID.slide-region.pdf (cropped), "
            "VIDEO_ID.context.pdf (full frames), VIDEO_ID.video-extraction.json and "
            "VIDEO_ID.contact-sheet.png (sampled frames with the region drawn) into OUTDIR. "
            "VIDEO may be any regular file inside the vault (read in place, never copied); "
            "under slides-rebuild/ VIDEO_ID must match the contract path "
            "slides-rebuild/{id}/{id}.mp4. An existing manifest is replaced only with --force. "
            "stdout is the manifest (schema v4)."
        ),
    )
    parser.add_argument("video", type=Path, metavar="VIDEO")
    parser.add_argument("outdir", type=Path, metavar="OUTDIR")
    parser.add_argument("video_id", metavar="VIDEO_ID")
    parser.add_argument(
        "--fps",
        type=float,
        default=DEFAULT_FPS,
        help=f"samples per second, {MIN_FPS:g}..{MAX_FPS:g} (default {DEFAULT_FPS})",
    )
    parser.add_argument(
        "--hash-threshold",
        type=int,
        default=DEFAULT_HASH_THRESHOLD,
        help=(
            "Hamming distance on the 256-bit pHash above which frames differ"
            f" (default {DEFAULT_HASH_THRESHOLD})"
        ),
    )
    parser.add_argument(
        "--region", metavar="LEFT,TOP,RIGHT,BOTTOM", help="manual slide region, normalized to [0,1]"
    )
    parser.add_argument(
        "--region-verified",
        action="store_true",
        help="the manual --region was visually checked (only then is the slide_region trusted)",
    )
    parser.add_argument(
        "--vault-root", type=Path, help="vault storage root (default: inferred from OUTDIR)"
    )
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help=(
            "keep a decode that stops short of the recording's declared duration (truncated or "
            "damaged file) as an untrusted candidate instead of refusing it"
        ),
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an existing manifest of VIDEO_ID in OUTDIR (and what it trusted)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    region = parse_region(args.region) if args.region is not None else None
    request = ExtractRequest(
        video=args.video,
        outdir=args.outdir,
        video_id=args.video_id,
        fps=args.fps,
        hash_threshold=args.hash_threshold,
        region=region,
        region_verified=args.region_verified,
        vault_root=args.vault_root,
        allow_incomplete=args.allow_incomplete,
        force=args.force,
    )
    contract_cli.emit(extract(request, progress=contract_cli.progress))
    return contract_cli.EXIT_OK
