"""Caption tracks through youtube-transcript-api.

The track chosen is the one in the talk's spoken language: when YouTube has
an automatic (ASR) track its language is the spoken one, and a manually
created track in that language is preferred over it; without an ASR track
the first manually created track is used. The track's own language code
becomes the result's ``language``. Library exceptions become stable codes so
the caller can fall back to local Whisper and report why.

``http_client_factory`` exists so tests can hand the real library a
``requests.Session`` that replays recorded responses; production uses a
plain session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import requests
from rvault_contracts.errors import Refusal
from youtube_transcript_api import YouTubeTranscriptApi
from youtube_transcript_api._errors import (
    AgeRestricted,
    CouldNotRetrieveTranscript,
    IpBlocked,
    NoTranscriptFound,
    PoTokenRequired,
    RequestBlocked,
    TranscriptsDisabled,
    VideoUnavailable,
    VideoUnplayable,
)

from rvault_transcript.receipts import Segment
from rvault_transcript.segments import normalize

http_client_factory: Callable[[], requests.Session] = requests.Session


class CaptionError(Refusal):
    """Captions that cannot be fetched, with a stable code (``captions_disabled``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


@dataclass(frozen=True)
class CaptionTrack:
    video_id: str
    language: str
    is_generated: bool
    segments: list[Segment]


_ERROR_CODES: tuple[tuple[type[Exception], str], ...] = (
    (TranscriptsDisabled, "captions_disabled"),
    (NoTranscriptFound, "captions_not_found"),
    (IpBlocked, "captions_blocked"),
    (RequestBlocked, "captions_blocked"),
    (PoTokenRequired, "captions_blocked"),
    (AgeRestricted, "video_age_restricted"),
    (VideoUnavailable, "video_unavailable"),
    (VideoUnplayable, "video_unplayable"),
)


def _code_for(exc: Exception) -> str:
    for kind, code in _ERROR_CODES:
        if isinstance(exc, kind):
            return code
    return "captions_unavailable"


def fetch_captions(video_id: str, languages: list[str] | None = None) -> CaptionTrack:
    """Fetch one caption track; raise :class:`CaptionError` with a stable code."""
    api = YouTubeTranscriptApi(http_client=http_client_factory())
    try:
        listing = api.list(video_id)
        tracks = list(listing)
        if languages:
            transcript = listing.find_transcript(languages)
        else:
            generated = [t for t in tracks if t.is_generated]
            manual = [t for t in tracks if not t.is_generated]
            if generated:
                spoken = generated[0].language_code
                same = [t for t in manual if t.language_code == spoken]
                transcript = same[0] if same else generated[0]
            elif manual:
                transcript = manual[0]
            else:
                raise CaptionError("captions_not_found", "the video lists no caption track")
        fetched = transcript.fetch()
    except CaptionError:
        raise
    except CouldNotRetrieveTranscript as exc:
        raise CaptionError(
            _code_for(exc),
            str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
        ) from None
    except requests.RequestException as exc:
        raise CaptionError("captions_network_error", f"{type(exc).__name__}: {exc}") from None
    segments = normalize((s.text, s.start, s.start + s.duration) for s in fetched.snippets)
    if not segments:
        raise CaptionError("captions_empty", "the caption track has no text")
    return CaptionTrack(video_id, fetched.language_code, fetched.is_generated, segments)
