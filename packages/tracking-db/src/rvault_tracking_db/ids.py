"""YouTube and Google Drive identity parsers shared by the whole package.

The shownotes scanner, the source-capability resolver and the rejection
ledger matcher must agree on what "the same video" or "the same deck" means,
so there is exactly one parser per provider. Parsers are offline and strict:
they read only the URL text, accept only http(s) URLs on the provider's own
hosts, and return ``None`` instead of guessing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import parse_qs, urlsplit

_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_DRIVE_ID = re.compile(r"^[A-Za-z0-9_-]{10,}$")

_YOUTUBE_HOSTS = frozenset(
    {
        "youtube.com",
        "www.youtube.com",
        "m.youtube.com",
        "music.youtube.com",
        "youtube-nocookie.com",
        "www.youtube-nocookie.com",
    }
)
_YOUTU_BE_HOSTS = frozenset({"youtu.be", "www.youtu.be"})
_YOUTUBE_PATH_PREFIXES = ("embed", "v", "shorts", "live", "e")
_DRIVE_HOSTS = frozenset({"drive.google.com", "docs.google.com"})
# Exactly the characters ``str.isspace`` accepts (re's ``\s`` on str uses the same table).
_SPACE = re.compile(r"\s")
# A status or normalize asks the same talk's URLs several times (capabilities, rejections,
# identity checks): each distinct URL text is parsed once per process.
_PARSED_URLS = 16384


def _split_http(url: object) -> tuple[str, list[str], dict[str, list[str]]] | None:
    """Host (lower case), non-empty path segments and query of an http(s) URL."""
    if not isinstance(url, str):
        return None
    text = url.strip()
    if not text or _SPACE.search(text):
        return None
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return None
    segments = [segment for segment in parts.path.split("/") if segment]
    return parts.hostname.lower(), segments, parse_qs(parts.query, keep_blank_values=True)


def is_youtube_id(value: object) -> bool:
    return isinstance(value, str) and _YOUTUBE_ID.fullmatch(value) is not None


def is_google_drive_id(value: object) -> bool:
    return isinstance(value, str) and _DRIVE_ID.fullmatch(value) is not None


def youtube_id(url: object) -> str | None:
    """The 11-character video ID of a YouTube URL, or ``None``.

    Accepted: ``/watch?v=ID``, ``youtu.be/ID``, ``/embed/ID``, ``/v/ID``,
    ``/shorts/ID``, ``/live/ID`` on the YouTube hosts (including nocookie).
    """
    return _youtube_id(url) if isinstance(url, str) else None


@lru_cache(maxsize=_PARSED_URLS)
def _youtube_id(url: str) -> str | None:
    split = _split_http(url)
    if split is None:
        return None
    host, segments, query = split
    candidate: str | None = None
    if host in _YOUTU_BE_HOSTS:
        candidate = segments[0] if len(segments) == 1 else None
    elif host in _YOUTUBE_HOSTS:
        if segments == ["watch"]:
            values = query.get("v", [])
            candidate = values[0] if len(values) == 1 else None
        elif len(segments) == 2 and segments[0] in _YOUTUBE_PATH_PREFIXES:
            candidate = segments[1]
    return candidate if is_youtube_id(candidate) else None


def google_drive_id(url: object) -> str | None:
    """The file ID of a Google Drive / Docs URL, or ``None``.

    Accepted: ``drive.google.com/file/d/ID/...``, ``drive.google.com/open?id=ID``,
    ``drive.google.com/uc?id=ID``, ``docs.google.com/<app>/d/ID/...``.
    """
    return _google_drive_id(url) if isinstance(url, str) else None


@lru_cache(maxsize=_PARSED_URLS)
def _google_drive_id(url: str) -> str | None:
    split = _split_http(url)
    if split is None:
        return None
    host, segments, query = split
    if host not in _DRIVE_HOSTS:
        return None
    candidate: str | None = None
    if (
        len(segments) >= 3
        and segments[1] == "d"
        and segments[0]
        in {
            "file",
            "presentation",
            "document",
            "spreadsheets",
        }
    ):
        candidate = segments[2]
    elif host == "drive.google.com" and segments in (["open"], ["uc"]):
        values = query.get("id", [])
        candidate = values[0] if len(values) == 1 else None
    return candidate if is_google_drive_id(candidate) else None


def provider_id(source_type: str, url: object) -> str | None:
    """The provider ID used for rejection matching: YouTube for video, Drive for slides."""
    if source_type == "video":
        return youtube_id(url)
    if source_type == "slides":
        return google_drive_id(url)
    return None
