"""Caption tracks through the real youtube-transcript-api with replayed HTTP responses."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rvault_transcript.captions import CaptionError, fetch_captions
from rvault_transcript.segments import transcript_bytes

VIDEO_ID = "RhEtOr1c_01"


def test_success_picks_the_spoken_language_track(youtube_replay: Callable[[str], list]) -> None:
    log = youtube_replay("success")
    track = fetch_captions(VIDEO_ID)
    assert track.language == "en"
    assert track.is_generated is True
    text = transcript_bytes(track.segments).decode()
    assert text.startswith("welcome everyone to this talk\ntoday we look at rhetoric\n")
    assert "the speaker's character" in text  # HTML entities decoded by the library
    assert len(text.split()) == 59
    # On-screen durations overlap (7.9 s every 7.5 s): segments are clamped, ordered, ms-grid.
    for left, right in zip(track.segments, track.segments[1:], strict=False):
        assert left.end_seconds <= right.start_seconds
    assert track.segments[0].start_seconds == 0.5 and track.segments[0].end_seconds == 8.0
    assert [method for method, _ in log] == ["GET", "POST", "GET"]
    assert "kind=asr" in log[-1][1] and "lang=en" in log[-1][1]


def test_explicit_language_preference_uses_that_track(
    youtube_replay: Callable[[str], list],
) -> None:
    youtube_replay("no_transcript")
    with pytest.raises(CaptionError) as raised:
        fetch_captions(VIDEO_ID, ["en"])
    assert raised.value.code == "captions_not_found"


@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        ("disabled", "captions_disabled"),
        ("blocked_bot", "captions_blocked"),
        ("ip_blocked", "captions_blocked"),
    ],
)
def test_provider_refusals_have_stable_codes(
    youtube_replay: Callable[[str], list], scenario: str, code: str
) -> None:
    youtube_replay(scenario)
    with pytest.raises(CaptionError) as raised:
        fetch_captions(VIDEO_ID)
    assert raised.value.code == code
