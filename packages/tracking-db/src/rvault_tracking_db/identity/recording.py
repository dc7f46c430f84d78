"""Which recording a talk names: the one rule the preflight and the identity lanes share."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rvault_tracking_db.ids import is_youtube_id, youtube_id


def catalog_video_id(talk: Mapping[str, Any]) -> str | None:
    """The recording the catalog names: the ID in ``video_url``, else ``youtube_id``."""
    url, stored = talk.get("video_url"), talk.get("youtube_id")
    return _video_id(
        url if isinstance(url, str) else None, stored if isinstance(stored, str) else None
    )


@lru_cache(maxsize=65536)
def url_video_id(url: str | None) -> str | None:
    """``ids.youtube_id``, cached: URL parsing is the cost of a vault-wide check."""
    return youtube_id(url)


def _video_id(url: str | None, stored: str | None) -> str | None:
    parsed = url_video_id(url)
    if parsed is not None:
        return parsed
    return stored if is_youtube_id(stored) else None
