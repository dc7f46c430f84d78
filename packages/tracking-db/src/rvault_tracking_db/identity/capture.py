"""Capturing what each recording says about itself, through yt-dlp (the library).

The preflight never fetches; this is the separate, networked, read-only step
the spec puts before review. For every talk that still has an active YouTube
recording (a ``video_url``/``youtube_id`` its ``source_rejections`` do not
reject), the distinct video IDs are asked once each, however many talks share
one. yt-dlp's answer becomes a *proposal*: provider facts only (title,
uploader, upload date, duration, webpage URL), never ``speakers`` or
``recorded_date``: an uploader is the publishing account, an upload date is
publication. A reviewer adds those delivery claims from other evidence and
stores the result with ``rvault-db set-identity``. The capture is written to
its own file; the database is only read.

``Extractor`` is the injected transport: ``video_id -> info dict`` (yt-dlp's
info document). The default asks YouTube through ``yt_dlp.YoutubeDL
.extract_info(download=False)``; ``replay_extractor`` runs recorded info
documents (``<video_id>.info.json``) through the same ``YoutubeDL`` processing
(``process_ie_result`` with no download), which is how tests run offline.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_tracking_db.identity.recording import catalog_video_id
from rvault_tracking_db.ids import youtube_id
from rvault_tracking_db.rejections import match_rejection

SCHEMA_VERSION = 1
Extractor = Callable[[str], Mapping[str, Any]]
MAX_INFO_BYTES = 64 * 1024 * 1024
_YTDLP_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


class CaptureError(Refusal):
    """One video's metadata could not be captured (kept as that entry's error)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


def _params() -> dict[str, Any]:
    return {"skip_download": True, "quiet": True, "no_warnings": True, "noplaylist": True}


def _yt_dlp() -> Any:
    try:
        import yt_dlp
    except ModuleNotFoundError:
        raise Refusal(
            "capture_unavailable",
            "yt-dlp is not installed",
            "$",
            hint="install the capture extra: pip install 'rvault-tracking-db[capture]'",
        ) from None
    return yt_dlp


def youtube_extractor() -> Extractor:
    """Ask YouTube, one ``extract_info`` per video, no download."""
    yt_dlp = _yt_dlp()
    from yt_dlp.utils import YoutubeDLError

    def extract(video_id: str) -> Mapping[str, Any]:
        try:
            with yt_dlp.YoutubeDL(_params()) as ydl:
                url = f"https://www.youtube.com/watch?v={video_id}"
                return ydl.sanitize_info(ydl.extract_info(url, download=False))
        except (YoutubeDLError, OSError) as exc:
            raise CaptureError("metadata_unavailable", f"{type(exc).__name__}: {exc}") from None

    return extract


def replay_extractor(directory: Path) -> Extractor:
    """Recorded yt-dlp info documents, processed by yt-dlp as a live answer would be."""
    yt_dlp = _yt_dlp()

    def extract(video_id: str) -> Mapping[str, Any]:
        info = _read_info(directory / f"{video_id}.info.json")
        with yt_dlp.YoutubeDL(_params()) as ydl:
            return ydl.sanitize_info(ydl.process_ie_result(dict(info), download=False))

    return extract


def _read_info(path: Path) -> Mapping[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_INFO_BYTES + 1)
    except OSError as exc:
        message = f"no recorded metadata: {exc.strerror}"
        raise CaptureError("metadata_unavailable", message) from None
    try:
        info = loads_strict(data)
    except StrictJSONError as exc:
        raise CaptureError("metadata_invalid", exc.message) from None
    if not isinstance(info, dict):
        raise CaptureError("metadata_invalid", "the info document is not an object")
    return info


def targets(database: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each distinct active video ID and the talks (filenames) that name it."""
    out: dict[str, list[str]] = {}
    for talk in database.get("talks") or []:
        if not isinstance(talk, Mapping) or not isinstance(talk.get("filename"), str):
            continue
        video = catalog_video_id(talk)
        url = talk.get("video_url") or f"https://youtu.be/{video}"
        if video is None or match_rejection("video", url, talk.get("source_rejections")):
            continue
        out.setdefault(video, []).append(talk["filename"])
    return dict(sorted(out.items()))


def proposal(video_id: str, info: Mapping[str, Any], captured_at: str) -> dict[str, Any]:
    """The provider facts of one info document as a partial ``source_identity`` v1."""
    if info.get("id") != video_id:
        raise CaptureError("metadata_id_mismatch", f"yt-dlp answered for {info.get('id')!r}")
    facts: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "provider": "youtube",
        "video_id": video_id,
        "captured_at": captured_at,
    }
    for name in ("title", "uploader", "uploader_id", "webpage_url"):
        if isinstance(info.get(name), str) and info[name].strip():
            facts[name] = info[name]
    match = _YTDLP_DATE.match(str(info.get("upload_date") or ""))
    if match:
        facts["upload_date"] = "-".join(match.groups())
    duration = info.get("duration")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and duration > 0:
        facts["duration_seconds"] = duration
    webpage = youtube_id(facts.get("webpage_url"))
    if webpage is not None:
        facts["webpage_video_id"] = webpage
    return facts


def capture(
    database: Mapping[str, Any], extract: Extractor, captured_at: str
) -> list[dict[str, Any]]:
    """One entry per distinct video: its talks and a proposal or the error."""
    entries = []
    for video, filenames in targets(database).items():
        entry: dict[str, Any] = {"video_id": video, "talks": filenames}
        try:
            entry.update(proposal=proposal(video, extract(video), captured_at), error=None)
        except CaptureError as exc:
            entry.update(proposal=None, error={"code": exc.code, "message": exc.message})
        entries.append(entry)
    return entries
