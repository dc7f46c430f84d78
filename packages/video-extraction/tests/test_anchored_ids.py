"""Video and YouTube ids match whole values: a trailing newline is not an id.

``re.match`` with a ``$`` anchor accepted ``"talk\\n"``, which would have named
output files with a newline in them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rvault_video_extraction.downloader import download_video
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.extract import ExtractRequest, extract


def test_extract_refuses_a_video_id_with_a_trailing_newline(tmp_path: Path, snapshot_tree) -> None:
    before = snapshot_tree(tmp_path)
    request = ExtractRequest(tmp_path / "talk.mp4", tmp_path / "out", "talk\n")
    with pytest.raises(VideoExtractionError) as refused:
        extract(request)
    assert refused.value.code == "invalid_video_id"
    assert snapshot_tree(tmp_path) == before


def test_download_refuses_a_youtube_id_with_a_trailing_newline(
    tmp_path: Path, snapshot_tree
) -> None:
    before = snapshot_tree(tmp_path)
    with pytest.raises(VideoExtractionError) as refused:
        download_video("dQw4w9WgXcQ\n", tmp_path, progress=lambda _: None)
    assert refused.value.code == "invalid_youtube_id"
    assert snapshot_tree(tmp_path) == before
