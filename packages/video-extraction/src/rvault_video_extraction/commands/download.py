"""``rvault-video download`` and ``batch-download``: talk videos via yt-dlp."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli

from rvault_video_extraction.errors import VideoExtractionError


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
    single.set_defaults(handler=run_single)

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
    batch.set_defaults(handler=run_batch)


def run_single(args: argparse.Namespace) -> int:
    from rvault_video_extraction.downloader import download_video

    try:
        result = download_video(
            args.youtube_id,
            args.vault_root,
            progress=contract_cli.progress,
            info_json=args.load_info_json,
            enable_file_urls=args.enable_file_urls,
        )
    except VideoExtractionError as exc:
        raise contract_cli.Refusal(
            exc.code, exc.message, exc.path, **exc.refusal_context()
        ) from None
    document = result.to_dict()
    document["ok"] = True
    contract_cli.emit(document)
    return contract_cli.EXIT_OK


def run_batch(args: argparse.Namespace) -> int:
    from rvault_video_extraction.downloader import DownloadResult, download_video

    results: list[DownloadResult] = []
    for youtube_id in args.youtube_ids:
        info = None
        if args.info_json_dir is not None:
            candidate = args.info_json_dir / f"{youtube_id}.info.json"
            info = candidate if candidate.is_file() else None
        contract_cli.progress(f"[{len(results) + 1}/{len(args.youtube_ids)}] {youtube_id}")
        try:
            results.append(
                download_video(
                    youtube_id,
                    args.vault_root,
                    progress=contract_cli.progress,
                    info_json=info,
                    enable_file_urls=args.enable_file_urls,
                )
            )
        except VideoExtractionError as exc:
            error = {"code": exc.code, "message": exc.message, "path": exc.path}
            results.append(DownloadResult(youtube_id, "failed", None, None, error))
    documents = [result.to_dict() for result in results]
    failed = [result.youtube_id for result in results if result.status == "failed"]
    if failed:
        raise contract_cli.Refusal(
            "batch_incomplete",
            f"{len(failed)} of {len(results)} downloads failed",
            None,
            results=documents,
        )
    contract_cli.emit({"ok": True, "results": documents})
    return contract_cli.EXIT_OK
