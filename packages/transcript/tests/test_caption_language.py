"""A caption track whose text is not in the track's language is not used.

YouTube labels a track with a language code; an ASR track run in the wrong
language, or a mislabelled upload, has text in another language. The text
is classified (lingua) against the code; on a mismatch the captions are
refused like any unusable caption text and the fetch falls back to Whisper,
which listens to the audio.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import av
import pytest
from rvault_transcript.cli import main

VIDEO_ID = "RhEtOr1c_01"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "youtube"


def relabelled(tmp_path: Path, code: str) -> Path:
    """The recorded 'success' scenario with its English ASR track labelled ``code``."""
    scenario = tmp_path / "relabelled"
    shutil.copytree(FIXTURES / "success", scenario)
    player = scenario / "player.json"
    document = json.loads(player.read_text(encoding="utf-8"))
    tracks = document["captions"]["playerCaptionsTracklistRenderer"]["captionTracks"]
    (asr,) = [track for track in tracks if track.get("kind") == "asr"]
    asr["languageCode"], asr["vssId"] = code, f"a.{code}"
    asr["baseUrl"] = asr["baseUrl"].replace("lang=en", f"lang={code}")
    player.write_text(json.dumps(document), encoding="utf-8")
    return scenario


def test_english_captions_labelled_spanish_fall_back_to_whisper(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    short_speech_wav: Path,
) -> None:
    vault = tmp_path / "transcripts"
    vault.mkdir()
    with av.open(str(short_speech_wav)) as container:
        duration = container.duration / av.time_base
    youtube_replay(relabelled(tmp_path, "es"))
    recorded_ytdlp(duration, short_speech_wav)
    out = vault / f"{VIDEO_ID}.txt"
    code = main(["fetch", VIDEO_ID, "--out", str(out), "--existing-source", "none",
                 "--duration-seconds", str(duration)])  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0, result
    assert "caption text refused (language_mismatch)" in captured.err
    assert (result["method"], result["language"]) == ("whisper", "en")
    receipt = json.loads((vault / f"{VIDEO_ID}.quality.json").read_bytes())
    assert receipt["language"]["detected"]["detector"] == "whisper"
    assert receipt["language"]["claimed"] == []


def test_a_track_its_text_confirms_is_recorded_with_both(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    vault = tmp_path / "transcripts"
    vault.mkdir()
    youtube_replay("success")
    recorded_ytdlp(100.0)
    out = vault / f"{VIDEO_ID}.txt"
    code = main(["fetch", VIDEO_ID, "--out", str(out), "--existing-source", "unknown",
                 "--duration-seconds", "100"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and (result["method"], result["language"]) == ("captions", "en")
    receipt = json.loads((vault / f"{VIDEO_ID}.quality.json").read_bytes())
    assert receipt["language"] == {
        "language": "en",
        "claimed": [{"language": "en", "source": "caption_track"}],
        "detected": {
            "detector": "lingua",
            "languages": [{"language": "en", "share": 1.0}],
            "mixed": False,
        },
    }
