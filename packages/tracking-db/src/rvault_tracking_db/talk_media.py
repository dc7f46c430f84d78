"""What the database knows about a talk's media, for the owners' receipt readers.

A transcript receipt is bound to media (a YouTube video, a recording's
duration); the transcript owner checks that binding against an owner
context built from the talk record. ``rvault-db status``, ``sources
register-transcript`` and the vault report must all build the same context
from the same record, so the two facts are read here, once: a stored value
that is not a valid YouTube ID or not a finite positive duration counts as
unknown, never as a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rvault_tracking_db.ids import youtube_id


def talk_video_id(talk: Mapping[str, Any] | None) -> str | None:
    """The talk's ``youtube_id`` when it is one (11 characters a YouTube URL accepts)."""
    value = talk.get("youtube_id") if talk is not None else None
    if isinstance(value, str) and youtube_id(f"https://youtu.be/{value}") == value:
        return value
    return None


def talk_duration_seconds(talk: Mapping[str, Any] | None) -> float | None:
    """``source_identity.duration_seconds`` when it is a finite positive number."""
    identity = talk.get("source_identity") if talk is not None else None
    seconds = identity.get("duration_seconds") if isinstance(identity, Mapping) else None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    return float(seconds) if math.isfinite(seconds) and seconds > 0 else None
