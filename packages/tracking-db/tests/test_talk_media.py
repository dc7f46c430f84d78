"""The media facts every receipt reader's owner context is built from."""

from __future__ import annotations

import math

import pytest
from rvault_tracking_db.api import talk_duration_seconds, talk_video_id


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("dQw4w9WgXc", None),  # 10 characters
        ("dQw4w9WgXc!", None),
        ("https://youtu.be/dQw4w9WgXcQ", None),  # a URL is not an id
        (None, None),
        (12345678901, None),
    ],
)
def test_video_id_is_the_stored_id_only_when_it_is_one(stored: object, expected: str) -> None:
    assert talk_video_id({"youtube_id": stored}) == expected
    assert talk_video_id({}) is None and talk_video_id(None) is None


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (1832, 1832.0),
        (61.5, 61.5),
        (0, None),
        (-3.0, None),
        (math.inf, None),
        (math.nan, None),
        (True, None),  # a bool is not a duration
        ("1832", None),
    ],
)
def test_duration_is_a_finite_positive_number_or_unknown(stored: object, expected: object) -> None:
    assert talk_duration_seconds({"source_identity": {"duration_seconds": stored}}) == expected
    assert talk_duration_seconds({"source_identity": "1832"}) is None
    assert talk_duration_seconds({}) is None and talk_duration_seconds(None) is None
