"""Whether a talk has a delivery video at all, before any range or citation is bound to one.

The spec binds a video interval to "an identity-bound local or timed
artifact" and checks "the verified duration bound"; the timed artifact of a
transcript (its timing receipt) carries a duration, but a duration is not a
picture. A transcript of an audio-only recording (a WAV a speaker attached
with ``rvault-db attach-media``) has a timing receipt whose duration would
bound any ``delivery_video`` range, although nothing of the delivery was ever
seen (issue 24: an audio-only recording is never delivery video). So the
video must exist first: a video the talk names (a YouTube id, a video URL),
or a recording in the vault that shows it (``TalkArtifacts.video_path``: the
download at the contract path, or the attached recording while it still has
its recorded bytes and a video stream, tracking-db's ``check_recording`` and
``recording_shows_video``). Only then may the timing receipt stand in as
the timed artifact.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_tracking_db.api import check_recording, talk_local_media, talk_video_id

from rvault_returns_persistence.artifacts import TalkArtifacts


def _names_video(talk: Mapping[str, Any]) -> bool:
    url = talk.get("video_url")
    has_url = isinstance(url, str) and url.lower().startswith(("https://", "http://"))
    return has_url or talk_video_id(talk) is not None


def missing_video(vault_root: Path, talk: Mapping[str, Any], found: TalkArtifacts) -> str | None:
    """``None`` when the talk has a delivery video, else why it has none (a sentence).

    The reason names the attached recording's own fault (audio only, or no
    longer the recorded bytes) so the speaker knows which fact to fix.
    """
    if found.video_path is not None or _names_video(talk):
        return None
    media = talk_local_media(talk)
    path = media.get("path") if media is not None else None
    if media is None or not isinstance(path, str):
        return "the talk names no video (youtube_id, video_url) and has no recording attached"
    stale = check_recording(vault_root, media)
    if stale is not None:
        return (
            f"the talk names no video and its attached recording {path} is not the recorded "
            f"bytes ({stale})"
        )
    return (
        f"the talk names no video and its attached recording {path} has no video stream "
        "(audio only): it shows nothing of the delivery"
    )
