"""Which recording a talk names: the one rule the preflight and the identity lanes share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rvault_tracking_db.ids import is_youtube_id, youtube_id


def catalog_video_id(talk: Mapping[str, Any]) -> str | None:
    """The recording the catalog names: the ID in ``video_url``, else ``youtube_id``."""
    parsed = youtube_id(talk.get("video_url"))
    if parsed is not None:
        return parsed
    stored = talk.get("youtube_id")
    return stored if is_youtube_id(stored) else None
