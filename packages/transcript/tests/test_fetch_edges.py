"""Edge cases of ``fetch`` at each provider boundary, with stable codes.

Caption failures come from the real youtube-transcript-api on replayed HTTP
(hand-made player responses for the playability states the library maps);
yt-dlp metadata and downloads come from recorded info dicts through the real
``YoutubeDL.extract_info``; local media is generated in process (``wave``,
PyAV). Whisper is replaced at its module boundary where a test needs the
media to change mid-transcription. Every refusal leaves the transcript
directory exactly as it was.
"""

from __future__ import annotations

import io
import json
import shutil
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
import requests
import yt_dlp
from requests.adapters import BaseAdapter
from rvault_transcript import captions, probe, whisper
from rvault_transcript.captions import CaptionError, fetch_captions
from rvault_transcript.cli import main
from rvault_transcript.probe import ProbeError, download_audio, probe_local, probe_youtube
from yt_dlp.extractor.common import InfoExtractor

VIDEO_ID = "RhEtOr1c_01"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    (directory / "other.txt").write_text("a bystander transcript\n")
    return directory


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any], str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err  # one JSON document on stdout


# --------------------------------------------------------------------------- captions


def player_scenario(tmp_path: Path, playability: dict[str, Any]) -> Path:
    """The blocked_bot recording with another InnerTube ``playabilityStatus``."""
    scenario = tmp_path / "scenario"
    shutil.copytree(FIXTURES / "youtube" / "blocked_bot", scenario)
    (scenario / "player.json").write_text(json.dumps({"playabilityStatus": playability}))
    return scenario


@pytest.mark.parametrize(
    ("playability", "code"),
    [
        (
            {
                "status": "LOGIN_REQUIRED",
                "reason": "This video may be inappropriate for some users.",
            },
            "video_age_restricted",
        ),
        ({"status": "ERROR", "reason": "This video is unavailable"}, "video_unavailable"),
        (
            {
                "status": "UNPLAYABLE",
                "reason": "Video unavailable",
                "errorScreen": {
                    "playerErrorMessageRenderer": {
                        "subreason": {"runs": [{"text": "Not available in your country"}]}
                    }
                },
            },
            "video_unplayable",
        ),
        ({"status": "LOGIN_REQUIRED", "reason": "Private video"}, "video_unplayable"),
    ],
    ids=["age_restricted", "unavailable", "unplayable", "private"],
)
def test_playability_states_have_stable_codes(
    tmp_path: Path, youtube_replay: Callable, playability: dict[str, Any], code: str
) -> None:
    log = youtube_replay(player_scenario(tmp_path, playability))
    with pytest.raises(CaptionError) as raised:
        fetch_captions(VIDEO_ID)
    assert raised.value.code == code
    assert [method for method, _ in log] == ["GET", "POST"]  # never reached a caption track


def test_a_track_of_blank_snippets_is_captions_empty(
    tmp_path: Path, youtube_replay: Callable
) -> None:
    scenario = tmp_path / "blank"
    shutil.copytree(FIXTURES / "youtube" / "success", scenario)
    (scenario / "timedtext.xml").write_text(
        '<transcript><text start="0.5" dur="2">  </text><text start="3" dur="2">&#160;\n</text>'
        '<text start="6" dur="1"><font color="#E5E5E5"></font></text></transcript>'
    )
    youtube_replay(scenario)
    with pytest.raises(CaptionError) as raised:
        fetch_captions(VIDEO_ID)
    assert raised.value.code == "captions_empty"


class _RaisingAdapter(BaseAdapter):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        raise self.error

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("prefix", "error"),
    [
        ("https://", requests.ConnectionError("connection refused")),
        ("https://www.youtube.com/api/timedtext", requests.ReadTimeout("read timed out")),
    ],
    ids=["no-connection", "caption-track-timeout"],
)
def test_transport_failures_are_captions_network_error(
    youtube_replay: Callable,
    monkeypatch: pytest.MonkeyPatch,
    prefix: str,
    error: Exception,
) -> None:
    youtube_replay("success")
    replay = captions.http_client_factory

    def session() -> requests.Session:
        client = replay()
        client.mount(prefix, _RaisingAdapter(error))  # the longest mounted prefix wins
        return client

    monkeypatch.setattr(captions, "http_client_factory", session)
    with pytest.raises(CaptionError) as raised:
        fetch_captions(VIDEO_ID)
    assert raised.value.code == "captions_network_error"
    assert type(error).__name__ in raised.value.message


def test_caption_code_and_audio_failure_reach_the_refusal(
    vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    snapshot_tree: Callable,
) -> None:
    """No caption track and no downloadable audio: one refusal naming both causes."""
    youtube_replay(
        player_scenario(tmp_path, {"status": "ERROR", "reason": "This video is unavailable"})
    )
    recorded_ytdlp(100.0, None)  # metadata without any format: the download fails
    before = snapshot_tree(vault)
    code, result, _ = run(
        capsys, "fetch", VIDEO_ID, "--out", vault / f"{VIDEO_ID}.txt", "--existing-source", "none"
    )
    assert code == 2 and result["error"]["code"] == "transcript_unavailable"
    assert result["error"]["path"] == VIDEO_ID
    assert "video_unavailable" in result["error"]["message"]
    assert "audio_download_failed" in result["error"]["message"]
    assert snapshot_tree(vault) == before


# --------------------------------------------------------------------------- yt-dlp


def info_factory(info: Callable[[str], dict[str, Any]]) -> Callable[[dict[str, Any]], Any]:
    """A ``YoutubeDL`` whose extractor answers with ``info(video_id)`` (real processing)."""

    class RecordedIE(InfoExtractor):
        _VALID_URL = r"https?://www\.youtube\.com/watch\?v=(?P<id>[A-Za-z0-9_-]{11})"
        IE_NAME = "recorded-edge"

        def _real_extract(self, url: str) -> dict[str, Any]:
            return info(self._match_id(url))

    def factory(params: dict[str, Any]) -> yt_dlp.YoutubeDL:
        ydl = yt_dlp.YoutubeDL(params | {"enable_file_urls": True}, auto_init=False)
        ydl.add_info_extractor(RecordedIE())
        return ydl

    return factory


def _audio_format(path: Path) -> dict[str, Any]:
    return {"format_id": "wav", "url": path.resolve().as_uri(), "ext": "wav", "vcodec": "none"}


@pytest.mark.parametrize(
    ("info", "code"),
    [
        (
            lambda vid: {"id": "XXXXXXXXXXX", "title": "t", "duration": 100},
            "metadata_identity_mismatch",
        ),
        (lambda vid: {"id": vid, "title": "t"}, "metadata_without_duration"),
        (lambda vid: {"id": vid, "title": "t", "duration": 0}, "metadata_without_duration"),
        (lambda vid: {"id": vid, "title": "t", "duration": -3.5}, "metadata_without_duration"),
    ],
    ids=["other-video", "no-duration", "zero", "negative"],
)
def test_metadata_probe_refusals(
    monkeypatch: pytest.MonkeyPatch, info: Callable[[str], dict[str, Any]], code: str
) -> None:
    monkeypatch.setattr(probe, "youtube_dl_factory", info_factory(info))
    with pytest.raises(ProbeError) as raised:
        probe_youtube(VIDEO_ID)
    assert raised.value.code == code


@pytest.mark.parametrize(
    "probe_code",
    ["metadata_identity_mismatch", "metadata_without_duration"],
)
def test_an_unusable_probe_leaves_the_claimed_duration_untrusted(
    vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    monkeypatch: pytest.MonkeyPatch,
    probe_code: str,
) -> None:
    """Captions are still written, but bound to no duration: no timing, the fixed floor."""
    scenario = tmp_path / "long"
    shutil.copytree(FIXTURES / "youtube" / "success", scenario)
    snippets = "".join(
        f'<text start="{i * 2}.0" dur="2.5">sentence number {i} is spoken here</text>'
        for i in range(70)
    )
    (scenario / "timedtext.xml").write_text(f"<transcript>{snippets}</transcript>")
    youtube_replay(scenario)
    recorded = (
        {"id": "XXXXXXXXXXX", "title": "t", "duration": 140.0}
        if probe_code == "metadata_identity_mismatch"
        else {"id": VIDEO_ID, "title": "t"}
    )
    monkeypatch.setattr(probe, "youtube_dl_factory", info_factory(lambda vid: recorded))
    out = vault / f"{VIDEO_ID}.txt"
    code, result, err = run(
        capsys, "fetch", VIDEO_ID, "--out", out, "--existing-source", "none",
        "--duration-seconds", "140",
    )  # fmt: skip
    assert code == 0, result
    assert f"yt-dlp probe failed ({probe_code})" in err
    assert result["duration_seconds"] is None and result["min_words"] == 400
    assert result["timed_path"] is None
    assert result["timing_status"]["code"] == "duration_untrusted"
    quality = json.loads((vault / f"{VIDEO_ID}.quality.json").read_text())
    assert quality["provenance"] == {"kind": "fixed_default"}
    assert not (vault / f"{VIDEO_ID}.segments.json").exists()


def test_download_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    audio = tmp_path / "audio.wav"
    audio.write_bytes(wav_bytes(0.2))
    formats = [_audio_format(audio)]
    cases = [
        (lambda vid: {"id": vid, "duration": 1, "formats": []}, "audio_download_failed"),
        (
            lambda vid: {"id": "XXXXXXXXXXX", "duration": 1, "formats": formats},
            "metadata_identity_mismatch",
        ),
    ]
    for number, (info, code) in enumerate(cases):
        monkeypatch.setattr(probe, "youtube_dl_factory", info_factory(info))
        target = tmp_path / f"download-{number}"
        target.mkdir()
        with pytest.raises(ProbeError) as raised:
            download_audio(VIDEO_ID, target)
        assert raised.value.code == code


def test_a_download_that_reports_no_file_is_audio_download_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """yt-dlp returned an info dict but no file it wrote (e.g. a post-processor removed it)."""

    class NoFileYoutubeDL:
        def __init__(self, params: dict[str, Any]) -> None:
            self.params = params

        def __enter__(self) -> NoFileYoutubeDL:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def extract_info(self, url: str, download: bool) -> dict[str, Any]:
            assert download and url.endswith(VIDEO_ID)
            return {"id": VIDEO_ID, "requested_downloads": [{"filepath": str(tmp_path / "gone")}]}

    monkeypatch.setattr(probe, "youtube_dl_factory", NoFileYoutubeDL)
    with pytest.raises(ProbeError) as raised:
        download_audio(VIDEO_ID, tmp_path)
    assert raised.value.code == "audio_download_failed"
    assert "no downloaded file" in raised.value.message


# --------------------------------------------------------------------------- local media


def wav_bytes(seconds: float) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16000)
        writer.writeframes(b"\0\0" * int(16000 * seconds))
    return buffer.getvalue()


def silent_video(path: Path) -> Path:
    """Half a second of MPEG-4 video without any audio stream."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=10)
        stream.width, stream.height, stream.pix_fmt = 16, 16, "yuv420p"
        for _ in range(5):
            frame = av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), np.uint8), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


@pytest.fixture
def media(tmp_path: Path) -> Callable[[str], Path]:
    directory = tmp_path / "media"
    directory.mkdir()

    def make(kind: str) -> Path:
        if kind == "video_only":
            return silent_video(directory / "video-only.mp4")
        path = directory / f"{kind}.wav"
        path.write_bytes(wav_bytes({"empty": 0.0, "one_second": 1.0}[kind]))
        return path

    return make


@pytest.mark.parametrize(
    ("kind", "code"),
    [("video_only", "media_without_audio"), ("empty", "media_without_duration")],
)
def test_media_the_probe_cannot_bind_is_refused(
    vault: Path,
    media: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable,
    kind: str,
    code: str,
) -> None:
    path = media(kind)
    with path.open("rb") as handle, pytest.raises(ProbeError) as raised:
        probe_local(handle)
    assert raised.value.code == code
    before = snapshot_tree(vault.parent)
    fresh = ["fetch", "talk", "--audio", path, "--out", vault / "talk.txt",
             "--existing-source", "none"]  # fmt: skip
    existing = ["fetch", "other", "--audio", path, "--out", vault / "other.txt",
                "--existing-source", "manual"]  # fmt: skip
    for args in (fresh, existing, ["verify", vault / "other.txt", "--media", path]):
        status, result, _ = run(capsys, *args)
        assert status == 2, result
        assert result["error"] == {"code": code, "message": raised.value.message, "path": str(path)}
        assert snapshot_tree(vault.parent) == before


def test_media_changed_while_transcribing_is_refused(
    vault: Path,
    media: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot_tree: Callable,
) -> None:
    path = media("one_second")
    calls: list[Any] = []

    def transcribe(source: Any, **options: Any) -> whisper.WhisperResult:
        calls.append(source)
        with path.open("ab") as handle:  # another process appends to the media meanwhile
            handle.write(b"\0\0" * 160)
        return whisper.WhisperResult("en", 1.0, [("hello there", 0.0, 0.9)], "fake", "cpu")

    monkeypatch.setattr(whisper, "transcribe", transcribe)
    before = snapshot_tree(vault)
    status, result, _ = run(
        capsys, "fetch", "talk", "--audio", path, "--out", vault / "talk.txt",
        "--existing-source", "none", "--force",
    )  # fmt: skip
    assert len(calls) == 1 and not isinstance(calls[0], str)  # the open, hashed handle
    assert status == 2, result
    assert result["error"]["code"] == "media_changed"
    assert result["error"]["path"] == str(path)
    assert snapshot_tree(vault) == before
