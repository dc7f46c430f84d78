"""``rvault-video download`` and ``batch-download``: talk videos via yt-dlp."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.downloads import (
    BatchDownloadRequest,
    DownloadRequest,
    download,
    download_batch,
)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    single = subparsers.add_parser(
        "download", help="download one talk video at <=720p mp4 to slides-rebuild/{id}/{id}.mp4"
    )
    single.add_argument("youtube_id", metavar="YOUTUBE_ID")
    single.add_argument("vault_root", type=Path, metavar="VAULT_ROOT")
    single.add_argument(
        "--load-info-json",
        type=Path,
        help="replay a saved yt-dlp info document instead of asking YouTube",
    )
    single.add_argument(
        "--enable-file-urls", action="store_true", help="yt-dlp: allow file:// format URLs"
    )
    single.set_defaults(handler=handle_single)

    batch = subparsers.add_parser(
        "batch-download", help="download several talk videos (each as `download`)"
    )
    batch.add_argument("vault_root", type=Path, metavar="VAULT_ROOT")
    batch.add_argument("youtube_ids", nargs="+", metavar="YOUTUBE_ID")
    batch.add_argument(
        "--info-json-dir", type=Path, help="use DIR/{id}.info.json when present (saved yt-dlp info)"
    )
    batch.add_argument(
        "--enable-file-urls", action="store_true", help="yt-dlp: allow file:// format URLs"
    )
    batch.set_defaults(handler=handle_batch)


def handle_single(args: argparse.Namespace) -> int:
    request = DownloadRequest(
        args.youtube_id, args.vault_root, args.load_info_json, args.enable_file_urls
    )
    contract_cli.emit(download(request, contract_cli.progress))
    return contract_cli.EXIT_OK


def handle_batch(args: argparse.Namespace) -> int:
    request = BatchDownloadRequest(
        args.vault_root, tuple(args.youtube_ids), args.info_json_dir, args.enable_file_urls
    )
    contract_cli.emit(download_batch(request, contract_cli.progress))
    return contract_cli.EXIT_OK
