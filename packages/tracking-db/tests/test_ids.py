"""The shared YouTube and Google Drive ID parsers: accepted forms and refusals."""

from __future__ import annotations

import pytest
from rvault_tracking_db.ids import google_drive_id, provider_id, youtube_id

VID = "dQw4w9WgXcQ"


@pytest.mark.parametrize(
    "url",
    [
        f"https://www.youtube.com/watch?v={VID}",
        f"https://youtube.com/watch?v={VID}&t=42s",
        f"http://m.youtube.com/watch?feature=share&v={VID}",
        f"https://youtu.be/{VID}",
        f"https://youtu.be/{VID}?si=abc",
        f"https://www.youtube.com/embed/{VID}",
        f"https://www.youtube-nocookie.com/embed/{VID}",
        f"https://www.youtube.com/shorts/{VID}",
        f"https://www.youtube.com/live/{VID}",
        f"https://www.youtube.com/v/{VID}",
        f"  https://youtu.be/{VID}  ",
    ],
)
def test_youtube_forms(url: str) -> None:
    assert youtube_id(url) == VID


@pytest.mark.parametrize(
    "url",
    [
        None,
        42,
        "",
        VID,
        f"ftp://youtu.be/{VID}",
        f"https://evil.example/watch?v={VID}",
        f"https://www.youtube.com.evil.example/watch?v={VID}",
        "https://www.youtube.com/watch?v=short",
        f"https://www.youtube.com/watch?v={VID}&v={VID}",
        f"https://www.youtube.com/playlist?list={VID}",
        f"https://youtu.be/{VID}/extra",
        f"https://youtu.be/{VID}x",
        f"https://www.youtube.com/watch?v={VID} trailing",
    ],
)
def test_youtube_refusals(url: object) -> None:
    assert youtube_id(url) is None


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://drive.google.com/file/d/1AbCdEfGhIjK/view?usp=sharing", "1AbCdEfGhIjK"),
        ("https://drive.google.com/file/d/1AbCdEfGhIjK", "1AbCdEfGhIjK"),
        ("https://drive.google.com/open?id=1AbCdEfGhIjK", "1AbCdEfGhIjK"),
        ("https://drive.google.com/uc?export=download&id=1AbCdEfGhIjK", "1AbCdEfGhIjK"),
        (
            "https://docs.google.com/presentation/d/1AbCdEfGhIjK_-x/edit#slide=id.p",
            "1AbCdEfGhIjK_-x",
        ),
        ("https://drive.google.com/file/d/short/view", None),
        ("https://drive.example.com/file/d/1AbCdEfGhIjK/view", None),
        ("https://drive.google.com/drive/folders/1AbCdEfGhIjK", None),
        ("https://drive.google.com/open?id=1AbCdEfGhIjK&id=1AbCdEfGhIjK", None),
        ("not a url", None),
    ],
)
def test_google_drive_forms(url: str, expected: str | None) -> None:
    assert google_drive_id(url) == expected


def test_provider_id_dispatches_by_source_type() -> None:
    assert provider_id("video", f"https://youtu.be/{VID}") == VID
    assert provider_id("slides", "https://drive.google.com/open?id=1AbCdEfGhIjK") == "1AbCdEfGhIjK"
    assert provider_id("slides", f"https://youtu.be/{VID}") is None
    assert provider_id("audio", f"https://youtu.be/{VID}") is None
