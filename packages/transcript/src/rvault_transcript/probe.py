"""Source-owned durations: yt-dlp metadata for a YouTube id, PyAV for local media.

A caller's ``--duration-seconds`` is an expected runtime, never authority:
it is used only when it matches one of these probes of the exact source.
The local probe reads the same open file whose bytes were hashed, so the
duration is bound to ``media_sha256`` and not to a path that could change.

``youtube_dl_factory`` builds the ``yt_dlp.YoutubeDL`` instance; tests
replace it with one whose extractor replays a recorded info dict, keeping
``extract_info`` and its processing on the real code path. yt-dlp (0.1-0.2 s
of import) is loaded by the YouTube probes only: a local recording's fetch
and ``verify --media`` never import it.
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from rvault_contracts.errors import Refusal

if TYPE_CHECKING:
    import yt_dlp


class ProbeError(Refusal):
    """Media or metadata that cannot be probed, with a stable code (``media_unreadable``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


class _StderrLogger:
    """yt-dlp must never write to stdout: stdout is the JSON contract."""

    def debug(self, message: str) -> None:
        pass

    def info(self, message: str) -> None:
        pass

    def warning(self, message: str) -> None:
        sys.stderr.write(f"yt-dlp: {message}\n")

    def error(self, message: str) -> None:
        sys.stderr.write(f"yt-dlp: {message}\n")


def _default_factory(params: dict[str, Any]) -> yt_dlp.YoutubeDL:
    import yt_dlp

    return yt_dlp.YoutubeDL(params)


youtube_dl_factory: Callable[[dict[str, Any]], yt_dlp.YoutubeDL] = _default_factory


def watch_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _base_params() -> dict[str, Any]:
    return {
        "quiet": True,
        "no_warnings": False,
        "noprogress": True,
        "logger": _StderrLogger(),
        "ignore_no_formats_error": True,
    }


@dataclass(frozen=True)
class YoutubeMetadata:
    video_id: str
    duration_seconds: float


def _positive_duration(value: object) -> float | None:
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    ):
        return float(value)
    return None


def probe_youtube(video_id: str) -> YoutubeMetadata:
    """Provider duration for the exact id via ``extract_info(download=False)``."""
    from yt_dlp.utils import DownloadError

    params = _base_params() | {"skip_download": True}
    try:
        with youtube_dl_factory(params) as ydl:
            info = ydl.extract_info(watch_url(video_id), download=False)
    except DownloadError as exc:
        raise ProbeError("metadata_unavailable", str(exc)) from None
    if not isinstance(info, dict) or info.get("id") != video_id:
        raise ProbeError("metadata_identity_mismatch", "yt-dlp metadata names another video")
    duration = _positive_duration(info.get("duration"))
    if duration is None:
        raise ProbeError("metadata_without_duration", "yt-dlp metadata has no positive duration")
    return YoutubeMetadata(video_id, duration)


def download_audio(video_id: str, directory: Path) -> Path:
    """Best audio of the exact id into ``directory`` (for the Whisper fallback)."""
    from yt_dlp.utils import DownloadError

    params = _base_params() | {
        "format": "bestaudio/best",
        "outtmpl": str(directory / "%(id)s.%(ext)s"),
        "ignore_no_formats_error": False,
    }
    try:
        with youtube_dl_factory(params) as ydl:
            info = ydl.extract_info(watch_url(video_id), download=True)
    except DownloadError as exc:
        raise ProbeError("audio_download_failed", str(exc)) from None
    if not isinstance(info, dict) or info.get("id") != video_id:
        raise ProbeError("metadata_identity_mismatch", "yt-dlp downloaded another video")
    for item in info.get("requested_downloads") or []:
        path = Path(str(item.get("filepath", "")))
        if path.is_file():
            return path
    raise ProbeError("audio_download_failed", "yt-dlp reported no downloaded file")


@dataclass(frozen=True)
class LocalMedia:
    sha256: str
    duration_seconds: float
    size: int


def hash_open_file(handle: BinaryIO) -> tuple[str, int]:
    handle.seek(0)
    digest = hashlib.sha256()
    size = 0
    while chunk := handle.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    handle.seek(0)
    return digest.hexdigest(), size


def probe_local(handle: BinaryIO) -> LocalMedia:
    """SHA-256 and PyAV duration of one open media file (the same bytes)."""
    import av

    sha, size = hash_open_file(handle)
    try:
        with av.open(handle, mode="r") as container:
            duration = None
            if container.duration is not None:
                duration = container.duration / av.time_base
            if not duration:
                for stream in container.streams.audio:
                    if stream.duration is not None and stream.time_base is not None:
                        duration = float(stream.duration * stream.time_base)
                        break
            if not container.streams.audio:
                raise ProbeError("media_without_audio", "the media file has no audio stream")
    except ProbeError:
        raise
    except Exception as exc:  # noqa: BLE001 - PyAV raises many error types for bad media
        raise ProbeError("media_unreadable", f"{type(exc).__name__}: {exc}") from None
    finally:
        handle.seek(0)
    positive = _positive_duration(duration)
    if positive is None:
        raise ProbeError("media_without_duration", "the media file has no positive duration")
    return LocalMedia(sha, positive, size)
