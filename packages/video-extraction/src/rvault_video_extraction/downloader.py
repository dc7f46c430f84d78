"""Talk video download with yt-dlp, as the spec's worker instructions give it.

Format selection is exactly the spec's
``bestvideo[height<=720][ext=mp4]+bestaudio[ext=m4a]/best[height<=720][ext=mp4]/best[height<=720]``
with ``--merge-output-format mp4``, and the output is
``{vault_root}/slides-rebuild/{youtube_id}/{youtube_id}.mp4``. yt-dlp writes
``.part`` files and renames on completion, so an interrupted download never
leaves a file under the final name. yt-dlp's own console output is routed
to stderr: stdout stays the one JSON document.

``info_json`` replays a saved yt-dlp info document (``--load-info-json``)
instead of asking YouTube, through the same ``YoutubeDL`` format selection,
download and merge code; ``enable_file_urls`` is yt-dlp's own switch for
``file://`` format URLs (both are how tests run offline).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.vault_paths import (
    locate_in_vault,
    make_directories,
    remove_created,
    require_utf8,
    resolve_vault_root,
)

FORMAT = (
    "bestvideo[height<=720][ext=mp4]+bestaudio[ext=m4a]"
    "/best[height<=720][ext=mp4]/best[height<=720]"
)
YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")


@dataclass(frozen=True)
class DownloadResult:
    youtube_id: str
    status: str
    path: str | None
    size: int | None
    error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "path": self.path,
            "size": self.size,
            "status": self.status,
            "youtube_id": self.youtube_id,
        }


class _StderrLogger:
    """yt-dlp logger: everything to our progress channel (stderr)."""

    def __init__(self, progress: Callable[[str], None]) -> None:
        self.progress = progress

    def debug(self, message: str) -> None:
        if not message.startswith("[debug] "):
            self.progress(message)

    def info(self, message: str) -> None:
        self.progress(message)

    def warning(self, message: str) -> None:
        self.progress(f"warning: {message}")

    def error(self, message: str) -> None:
        self.progress(f"error: {message}")


def target_path(storage_root: Path, youtube_id: str) -> Path:
    return storage_root / "slides-rebuild" / youtube_id / f"{youtube_id}.mp4"


def ydl_params(
    target: Path, progress: Callable[[str], None], enable_file_urls: bool
) -> dict[str, Any]:
    last = [0.0]

    def hook(status: dict[str, Any]) -> None:
        now = time.monotonic()
        if status.get("status") == "finished" or now - last[0] >= 2.0:
            last[0] = now
            done = status.get("downloaded_bytes") or 0
            total = status.get("total_bytes") or status.get("total_bytes_estimate") or 0
            eta = status.get("eta")
            progress(
                f"download {status.get('status')}: {done}/{total or '?'} bytes, "
                f"ETA {eta if eta is not None else '?'}s"
            )

    return {
        "format": FORMAT,
        "merge_output_format": "mp4",
        "outtmpl": {"default": str(target)},
        "noplaylist": True,
        "quiet": True,
        "noprogress": True,
        "no_warnings": False,
        "logger": _StderrLogger(progress),
        "progress_hooks": [hook],
        "overwrites": False,
        "enable_file_urls": enable_file_urls,
    }


MAX_INFO_JSON_BYTES = 64 * 1024 * 1024


def _check_info_json(path: Path, youtube_id: str) -> None:
    try:
        # O_NONBLOCK: a FIFO must not hang us; only a bounded regular file is read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            info_stat = os.fstat(handle.fileno())
            if not stat.S_ISREG(info_stat.st_mode):
                raise VideoExtractionError(
                    "info_json_not_regular_file",
                    "the info document is not a regular file",
                    str(path),
                )
            if info_stat.st_size > MAX_INFO_JSON_BYTES:
                raise VideoExtractionError(
                    "info_json_too_large",
                    f"the info document exceeds {MAX_INFO_JSON_BYTES} bytes",
                    str(path),
                )
            data = handle.read(MAX_INFO_JSON_BYTES + 1)
        info = loads_strict(data)
    except OSError as exc:
        raise VideoExtractionError("info_json_unreadable", str(exc.strerror), str(path)) from None
    except StrictJSONError as exc:
        raise VideoExtractionError("info_json_invalid", str(exc), str(path)) from None
    if info.get("id") != youtube_id:
        raise VideoExtractionError(
            "info_json_id_mismatch", f"the info document is for {info.get('id')!r}", str(path)
        )


def download_video(
    youtube_id: str,
    vault_root: Path,
    *,
    progress: Callable[[str], None],
    info_json: Path | None = None,
    enable_file_urls: bool = False,
) -> DownloadResult:
    """Download one talk video (or report it already present)."""
    if not YOUTUBE_ID.fullmatch(youtube_id):
        raise VideoExtractionError(
            "invalid_youtube_id", "a YouTube id is 11 characters of [A-Za-z0-9_-]", youtube_id
        )
    storage = resolve_vault_root(vault_root)
    target = locate_in_vault(target_path(storage, youtube_id), storage, storage, must_exist=False)
    require_utf8(target)
    if info_json is not None:
        _check_info_json(info_json, youtube_id)
    try:
        info = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise VideoExtractionError(
                "not_regular_file", "the target exists and is not a regular file", str(target)
            )
        return DownloadResult(youtube_id, "already_present", str(target), info.st_size)
    created = make_directories(target.parent, "target_dir_unwritable", "the download directory")
    done = False
    try:
        locate_in_vault(target.parent, storage, storage, must_exist=True)
        result = _run_ytdlp(youtube_id, target, progress, info_json, enable_file_urls)
        done = True
    finally:
        if not done:
            remove_created(created)
    return result


def _run_ytdlp(
    youtube_id: str,
    target: Path,
    progress: Callable[[str], None],
    info_json: Path | None,
    enable_file_urls: bool,
) -> DownloadResult:
    import yt_dlp
    from yt_dlp.utils import YoutubeDLError

    params = ydl_params(target, progress, enable_file_urls)
    try:
        with yt_dlp.YoutubeDL(params) as ydl:
            if info_json is not None:
                code = ydl.download_with_info_file(str(info_json))
            else:
                code = ydl.download([f"https://www.youtube.com/watch?v={youtube_id}"])
    except (YoutubeDLError, OSError) as exc:
        # DownloadError, network RequestError (also the file:// block) and I/O derive from these.
        raise VideoExtractionError(
            "download_failed", f"{type(exc).__name__}: {exc}", youtube_id
        ) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if info_json is None:
            raise
        # yt-dlp trusts the shape of a replayed info document; a missing or
        # mistyped field surfaces as one of these, which is the document's fault.
        raise VideoExtractionError(
            "info_json_invalid",
            f"yt-dlp cannot use the info document ({type(exc).__name__}: {exc})",
            str(info_json),
        ) from None
    if code:
        raise VideoExtractionError(
            "download_failed", f"yt-dlp reported failure ({code})", youtube_id
        )
    try:
        final = os.lstat(target)
    except FileNotFoundError:
        raise VideoExtractionError(
            "download_failed", "yt-dlp finished without producing the target", str(target)
        ) from None
    if not stat.S_ISREG(final.st_mode):
        raise VideoExtractionError(
            "not_regular_file", "the downloaded target is not a regular file", str(target)
        )
    return DownloadResult(youtube_id, "downloaded", str(target), final.st_size)
