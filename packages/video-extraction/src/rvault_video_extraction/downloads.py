"""The reports of ``rvault-video download`` and ``batch-download``.

Each id goes through :func:`rvault_video_extraction.downloader.download_video`
(yt-dlp is imported only when a download runs). A batch downloads every id
even after a failure, records each failure in its results, and refuses
(``batch_incomplete``, every result attached) when any failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.errors import Refusal

from rvault_video_extraction.downloader import DownloadResult, download_video
from rvault_video_extraction.errors import VideoExtractionError


@dataclass(frozen=True)
class DownloadRequest:
    youtube_id: str
    vault_root: Path
    info_json: Path | None = None
    """Replay this saved yt-dlp info document instead of asking YouTube."""
    enable_file_urls: bool = False


@dataclass(frozen=True)
class BatchDownloadRequest:
    vault_root: Path
    youtube_ids: tuple[str, ...]
    info_json_dir: Path | None = None
    """Use ``DIR/{id}.info.json`` when present (saved yt-dlp info)."""
    enable_file_urls: bool = False


def download(request: DownloadRequest, progress: Callable[[str], None]) -> dict[str, Any]:
    """Download one talk video (or find it present): its result with ``ok: true``."""
    result = download_video(
        request.youtube_id,
        request.vault_root,
        progress=progress,
        info_json=request.info_json,
        enable_file_urls=request.enable_file_urls,
    )
    document = result.to_dict()
    document["ok"] = True
    return document


def download_batch(
    request: BatchDownloadRequest, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Download every id in order; ``{"ok": true, "results": [...]}`` when none failed."""
    results: list[DownloadResult] = []
    for youtube_id in request.youtube_ids:
        info = None
        if request.info_json_dir is not None:
            candidate = request.info_json_dir / f"{youtube_id}.info.json"
            info = candidate if candidate.is_file() else None
        progress(f"[{len(results) + 1}/{len(request.youtube_ids)}] {youtube_id}")
        try:
            results.append(
                download_video(
                    youtube_id,
                    request.vault_root,
                    progress=progress,
                    info_json=info,
                    enable_file_urls=request.enable_file_urls,
                )
            )
        except VideoExtractionError as exc:
            error = {"code": exc.code, "message": exc.message, "path": exc.path}
            results.append(DownloadResult(youtube_id, "failed", None, None, error))
    documents = [result.to_dict() for result in results]
    failed = [result.youtube_id for result in results if result.status == "failed"]
    if failed:
        raise Refusal(
            "batch_incomplete",
            f"{len(failed)} of {len(results)} downloads failed",
            None,
            results=documents,
        )
    return {"ok": True, "results": documents}
