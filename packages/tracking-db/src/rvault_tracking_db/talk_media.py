"""What the database knows about a talk's media, for the owners' receipt readers.

A transcript receipt is bound to media (a YouTube video, a recording's
duration); the transcript owner checks that binding against an owner
context built from the talk record. ``rvault-db status``, ``sources
register-transcript``, ``rvault-returns`` and ``rvault-analysis`` must all
build the same context from the same record, so its facts are read here,
once (:func:`transcript_owner`): a stored value that is not a valid YouTube
ID, SHA-256 or finite positive duration counts as unknown, never as a guess.

The media digest and its duration come from ``local_media`` (db-local-media
v2, written by ``rvault-db attach-media``; v2 adds the recording's
``streams``, and a v1 record, which lacks them, is still read). When a talk has a recording, its
probed duration is the owner duration: the transcript of a local recording
is bound to those bytes, and the provider duration of ``source_identity``
describes another copy of the talk.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from rvault_contracts.canonical import is_sha256_hex

from rvault_tracking_db.ids import youtube_id


def talk_video_id(talk: Mapping[str, Any] | None) -> str | None:
    """The talk's ``youtube_id`` when it is one (11 characters a YouTube URL accepts)."""
    value = talk.get("youtube_id") if talk is not None else None
    if isinstance(value, str) and youtube_id(f"https://youtu.be/{value}") == value:
        return value
    return None


_LOCAL_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def talk_video_key(talk: Mapping[str, Any] | None) -> str | None:
    """The id the video owner's files of this talk are named by.

    ``slides-rebuild/{key}/{key}.video-extraction.json`` and the promoted
    ``slides/{key}.pdf``: the YouTube id when the talk has one, else, for a talk
    known only by its own recording, that recording's file stem (the
    ``VIDEO_ID`` its ``rvault-video extract`` is run with), when it is a safe
    name. Every reader that looks for a talk's manifest or promoted slides
    asks here, so slides recovered from a local recording are read as
    video-extracted evidence, never as an authored PDF.
    """
    video = talk_video_id(talk)
    if video is not None:
        return video
    media = talk_local_media(talk)
    path = media.get("path") if media is not None else None
    stem = PurePosixPath(path).stem if isinstance(path, str) else ""
    return stem if _LOCAL_KEY.match(stem) else None


def _positive(seconds: Any) -> float | None:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    return float(seconds) if math.isfinite(seconds) and seconds > 0 else None


def talk_duration_seconds(talk: Mapping[str, Any] | None) -> float | None:
    """``source_identity.duration_seconds`` when it is a finite positive number."""
    identity = talk.get("source_identity") if talk is not None else None
    return _positive(identity.get("duration_seconds") if isinstance(identity, Mapping) else None)


LOCAL_MEDIA_READ_VERSIONS = (1, 2)


def talk_local_media(talk: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The talk's ``local_media`` v1/v2 record when its digest and duration are usable."""
    media = talk.get("local_media") if talk is not None else None
    if (
        not isinstance(media, Mapping)
        or media.get("schema_version") not in LOCAL_MEDIA_READ_VERSIONS
    ):
        return None
    if not is_sha256_hex(media.get("sha256")) or _positive(media.get("duration_seconds")) is None:
        return None
    return media


@dataclass(frozen=True)
class TranscriptOwner:
    """The owner context of a talk's transcript receipts, field for field
    ``rvault_transcript.api.OwnerContext``: ``OwnerContext(**owner.kwargs())``."""

    video_id: str | None
    media_sha256: str | None
    duration_seconds: float | None

    def kwargs(self) -> dict[str, Any]:
        return {
            "video_id": self.video_id,
            "media_sha256": self.media_sha256,
            "duration_seconds": self.duration_seconds,
        }


def transcript_owner(talk: Mapping[str, Any] | None) -> TranscriptOwner:
    """What the talk record knows independently of any receipt."""
    media = talk_local_media(talk)
    if media is not None:
        return TranscriptOwner(
            talk_video_id(talk), str(media["sha256"]), _positive(media["duration_seconds"])
        )
    return TranscriptOwner(talk_video_id(talk), None, talk_duration_seconds(talk))
