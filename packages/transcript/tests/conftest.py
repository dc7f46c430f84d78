"""Shared fixtures: replayed YouTube HTTP, recorded yt-dlp metadata, espeak-ng speech.

The replay keeps the real library code paths: youtube-transcript-api gets a
``requests.Session`` whose adapter answers from recorded files, and yt-dlp
gets a ``YoutubeDL`` whose extractor returns a recorded info dict (its
formats point at a local file URL, so even the download path is yt-dlp's).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yt_dlp
from requests.adapters import BaseAdapter
from rvault_transcript import captions, probe
from yt_dlp.extractor.common import InfoExtractor

FIXTURES = Path(__file__).resolve().parent / "fixtures"
VIDEO_ID = "RhEtOr1c_01"
RECORDED_DURATION = 100.0


class ReplayAdapter(BaseAdapter):
    """Answer requests from a scenario's manifest; unmatched requests fail loudly."""

    def __init__(self, scenario: Path, log: list[tuple[str, str]]) -> None:
        super().__init__()
        self.scenario = scenario
        self.rules = json.loads((scenario / "manifest.json").read_text(encoding="utf-8"))
        self.log = log

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        url = str(request.url)
        self.log.append((str(request.method), url))
        for rule in self.rules:
            if rule["method"] == request.method and url.startswith(rule["url_prefix"]):
                response = requests.Response()
                response.status_code = rule["status"]
                response._content = (self.scenario / rule["body"]).read_bytes()
                response.headers["Content-Type"] = rule["content_type"]
                response.encoding = "utf-8"
                response.url = url
                response.request = request
                return response
        raise AssertionError(f"unrecorded request {request.method} {url}")

    def close(self) -> None:
        pass


class ReplaySession(requests.Session):
    def __init__(self, scenario: Path, log: list[tuple[str, str]]) -> None:
        super().__init__()
        adapter = ReplayAdapter(scenario, log)
        self.mount("https://", adapter)
        self.mount("http://", adapter)


@pytest.fixture
def youtube_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[str | Path], list[tuple[str, str]]]:
    """Select a recorded scenario for every session youtube-transcript-api is given."""

    def use(scenario: str | Path) -> list[tuple[str, str]]:
        log: list[tuple[str, str]] = []
        directory = scenario if isinstance(scenario, Path) else FIXTURES / "youtube" / scenario
        monkeypatch.setattr(
            captions,
            "http_client_factory",
            lambda: ReplaySession(directory, log),
        )
        return log

    return use


def recorded_ydl_factory(
    duration: float, audio: Path | None
) -> Callable[[dict[str, Any]], yt_dlp.YoutubeDL]:
    class RecordedYoutubeIE(InfoExtractor):
        _VALID_URL = r"https?://www\.youtube\.com/watch\?v=(?P<id>[A-Za-z0-9_-]{11})"
        IE_NAME = "recorded-youtube"

        def _real_extract(self, url: str) -> dict[str, Any]:
            video_id = self._match_id(url)
            formats = []
            if audio is not None:
                formats.append(
                    {
                        "format_id": "wav",
                        "url": audio.resolve().as_uri(),
                        "ext": "wav",
                        "acodec": "pcm_s16le",
                        "vcodec": "none",
                    }
                )
            return {
                "id": video_id,
                "title": "Recorded talk",
                "duration": duration,
                "formats": formats,
            }

    def factory(params: dict[str, Any]) -> yt_dlp.YoutubeDL:
        ydl = yt_dlp.YoutubeDL(params | {"enable_file_urls": True}, auto_init=False)
        ydl.add_info_extractor(RecordedYoutubeIE())
        return ydl

    return factory


@pytest.fixture
def recorded_ytdlp(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    def use(duration: float = RECORDED_DURATION, audio: Path | None = None) -> None:
        monkeypatch.setattr(probe, "youtube_dl_factory", recorded_ydl_factory(duration, audio))

    return use


SPOKEN = (
    "Good morning. Today I will talk about the history of public speaking. "
    "Every speaker needs a clear opening, a strong middle and a memorable closing."
)


@pytest.fixture(scope="session")
def speech_wav(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A few seconds of English speech synthesized by espeak-ng (16 kHz mono WAV)."""
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    out = tmp_path_factory.mktemp("speech") / "speech.wav"
    subprocess.run(
        ["espeak-ng", "-s", "150", "-w", str(out), SPOKEN], check=True, capture_output=True
    )
    yield out


#: The shortest English that still proves a Whisper transcription: two sentences
#: (about 5 s), every word of them asserted somewhere. A Whisper fetch of it costs
#: about 1.7 s against 3 s for ``SPOKEN`` (both load the multilingual base for
#: detection; the longer audio pays for more windows and more beam search).
SHORT_SPOKEN = "Good morning. Every speaker needs a clear opening and a strong closing."


@pytest.fixture(scope="session")
def short_speech_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 5 s of English speech by espeak-ng, for tests whose subject is not the text."""
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    out = tmp_path_factory.mktemp("short-speech") / "short.wav"
    subprocess.run(
        ["espeak-ng", "-s", "150", "-w", str(out), SHORT_SPOKEN], check=True, capture_output=True
    )
    return out
