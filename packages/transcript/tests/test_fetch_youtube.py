"""``fetch YOUTUBE_ID`` in process: replayed captions, recorded yt-dlp metadata."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import av
import pytest
from rvault_transcript.api import OwnerContext, read_evidence, read_quality, read_timing
from rvault_transcript.cli import main

VIDEO_ID = "RhEtOr1c_01"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_fetch(
    capsys: pytest.CaptureFixture[str], out: Path, *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["fetch", VIDEO_ID, "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)  # exactly one JSON document on stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


def caption_text() -> str:
    lines = [
        "welcome everyone to this talk",
        "today we look at rhetoric",
        "and how speakers persuade people",
        "the first idea is ethos",
        "which means the speaker's character",
        "the second idea is pathos",
        "an appeal to the audience's feelings",
        "the third idea is logos",
        "an argument built from reasons",
        "good talks balance all three",
        "thank you very much",
        "questions are welcome now",
    ]
    return "\n".join(lines) + "\n"


def test_fresh_captions_with_trusted_duration(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    youtube_replay("success")
    recorded_ytdlp(100.0)
    out = vault / f"{VIDEO_ID}.txt"
    code, result = run_fetch(
        capsys, out, "--existing-source", "unknown", "--duration-seconds", "100.4"
    )
    assert code == 0, result
    assert result["method"] == "captions" and result["transcript_source"] == "youtube_auto"
    assert result["language"] == "en"
    assert result["timed_path"] == str(vault / f"{VIDEO_ID}.segments.json")
    assert result["quality_path"] == str(vault / f"{VIDEO_ID}.quality.json")
    assert result["word_count"] == 59 and result["min_words"] == 50
    assert out.read_text() == caption_text()
    quality = json.loads((vault / f"{VIDEO_ID}.quality.json").read_text())
    assert quality["provenance"] == {
        "kind": "youtube_duration",
        "video_id": VIDEO_ID,
        "duration_seconds": 100.0,
    }
    assert quality["policy"] == {"schema_version": 1, "min_words": 50, "duration_seconds": 100.0}
    timing = json.loads((vault / f"{VIDEO_ID}.segments.json").read_text())
    assert timing["source"] == "captions"
    assert timing["provenance"] == {
        "kind": "youtube_captions",
        "video_id": VIDEO_ID,
        "duration_seconds": 100.0,
    }
    report = read_evidence(out, owner=OwnerContext(video_id=VIDEO_ID))
    assert report.plain_quote and report.timed_quote
    # The same receipts do not verify for another talk.
    other = read_evidence(out, owner=OwnerContext(video_id="XXXXXXXXXXX"))
    assert not other.plain_quote and other.quality.code == "owner_mismatch"


def test_min_words_tightens_but_never_lowers(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    youtube_replay("success")
    recorded_ytdlp(100.0)
    out = vault / f"{VIDEO_ID}.txt"
    code, result = run_fetch(
        capsys,
        out,
        "--existing-source",
        "unknown",
        "--duration-seconds",
        "100",
        "--min-words",
        "10",
    )
    assert code == 0 and result["min_words"] == 50
    out.unlink()
    youtube_replay("success")
    code, result = run_fetch(
        capsys,
        out,
        "--existing-source",
        "unknown",
        "--duration-seconds",
        "100",
        "--min-words",
        "60",
        "--force",
    )
    # 59 caption words < 60: captions refused, Whisper fallback has no audio -> nothing written.
    assert code == 2 and result["error"]["code"] == "transcript_unavailable"
    assert not out.exists()


def test_unmatched_duration_keeps_the_default_floor(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    youtube_replay("success")
    recorded_ytdlp(100.0)
    out = vault / f"{VIDEO_ID}.txt"
    code, result = run_fetch(
        capsys, out, "--existing-source", "unknown", "--duration-seconds", "60"
    )
    assert code == 2 and result["error"]["code"] == "transcript_unavailable"
    assert sorted(p.name for p in vault.iterdir()) == []


# Each scenario is a full local Whisper round trip; make test runs one (marker `sweep`).
@pytest.mark.parametrize(
    "scenario",
    [
        "no_transcript",
        pytest.param("disabled", marks=pytest.mark.sweep),
        pytest.param("blocked_bot", marks=pytest.mark.sweep),
        pytest.param("ip_blocked", marks=pytest.mark.sweep),
    ],
)
def test_caption_failures_fall_back_to_whisper(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    short_speech_wav: Path,
    scenario: str,
) -> None:
    with av.open(str(short_speech_wav)) as container:
        duration = container.duration / av.time_base
    youtube_replay(scenario)
    recorded_ytdlp(duration, short_speech_wav)
    out = vault / f"{VIDEO_ID}.txt"
    args = ["--existing-source", "none", "--duration-seconds", str(duration)]
    if scenario == "no_transcript":
        args += ["--language", "en"]
    code, result = run_fetch(capsys, out, *args)
    assert code == 0, result
    assert result["method"] == "whisper" and result["transcript_source"] == "whisper"
    assert result["language"] == "en"
    text = out.read_text().lower()
    for word in ("morning", "speaker", "opening", "closing"):
        assert word in text
    timing = json.loads((vault / f"{VIDEO_ID}.segments.json").read_text())
    assert timing["provenance"]["kind"] == "youtube_whisper"
    assert read_evidence(out, owner=OwnerContext(video_id=VIDEO_ID)).timed_quote


def test_no_captions_and_no_audio_is_refused_without_writing(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    youtube_replay("blocked_bot")
    recorded_ytdlp(100.0, None)
    out = vault / f"{VIDEO_ID}.txt"
    code, result = run_fetch(capsys, out, "--existing-source", "unknown")
    assert code == 2
    assert result["ok"] is False and result["error"]["code"] == "transcript_unavailable"
    assert "captions_blocked" in result["error"]["message"]
    assert list(vault.iterdir()) == []


# --------------------------------------------------------------------------- existing transcripts


def test_existing_youtube_auto_gains_caption_timing_and_keeps_bytes(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    snapshot_file: Callable,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    # Same words, different Unicode whitespace layout (one line, NBSP, tabs).
    out.write_bytes(caption_text().replace("\n", " \u00a0\t").encode())
    before = snapshot_file(out)
    youtube_replay("success")
    recorded_ytdlp(100.0)
    code, result = run_fetch(
        capsys, out, "--existing-source", "youtube_auto", "--duration-seconds", "100"
    )
    assert code == 0, result
    assert (
        result["method"] == "existing"
        and result["language"] is None
        and result["transcript_source"] is None
    )
    assert result["timed_path"] is not None and result["quality_path"] is not None
    assert snapshot_file(out) == before
    assert set(result["write"]["files"]) == {
        f"{VIDEO_ID}.quality.json",
        f"{VIDEO_ID}.segments.json",
    }
    owner = OwnerContext(video_id=VIDEO_ID, duration_seconds=100.0)
    assert read_timing(out, owner=owner).usable and read_quality(out, owner=owner).usable


@pytest.mark.parametrize("existing_source", ["manual", "whisper", "unknown"])
def test_existing_without_youtube_auto_stays_untimed(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    snapshot_file: Callable,
    existing_source: str,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(caption_text().encode())
    before = snapshot_file(out)
    log = youtube_replay("success")
    recorded_ytdlp(100.0)
    code, result = run_fetch(
        capsys, out, "--existing-source", existing_source, "--duration-seconds", "100"
    )
    assert code == 0, result
    assert result["method"] == "existing" and result["timed_path"] is None
    assert log == []  # no caption request at all
    assert not (vault / f"{VIDEO_ID}.segments.json").exists()
    assert snapshot_file(out) == before


def test_existing_youtube_auto_with_changed_words_stays_untimed(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(caption_text().replace("ethos", "Ethos").encode())
    youtube_replay("success")
    recorded_ytdlp(100.0)
    code, result = run_fetch(
        capsys, out, "--existing-source", "youtube_auto", "--duration-seconds", "100"
    )
    assert code == 0
    assert (
        result["timed_path"] is None and result["timing_status"]["code"] == "caption_text_mismatch"
    )
    assert not (vault / f"{VIDEO_ID}.segments.json").exists()


def test_existing_quality_receipt_is_reused(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    recorded_ytdlp: Callable,
    snapshot_file: Callable,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(caption_text().encode())
    recorded_ytdlp(100.0)
    code, first = run_fetch(capsys, out, "--existing-source", "manual", "--duration-seconds", "100")
    assert code == 0 and first["write"] is not None
    receipt = snapshot_file(vault / f"{VIDEO_ID}.quality.json")
    code, second = run_fetch(
        capsys, out, "--existing-source", "manual", "--duration-seconds", "100"
    )
    assert code == 0 and second["write"] is None
    assert second["quality_status"]["code"] == "quality_reused"
    assert snapshot_file(vault / f"{VIDEO_ID}.quality.json") == receipt


@pytest.mark.parametrize(
    ("content", "code", "reason"),
    [
        (b"", "existing_transcript_invalid", "empty_text"),
        (
            b'Traceback (most recent call last):\n  File "fetch.py", line 3, in <module>\n'
            b"AttributeError: 'YouTubeTranscriptApi' has no attribute 'get_transcript'\n",
            "existing_transcript_invalid",
            "traceback_text",
        ),
        (b"Transcript not available.\n", "existing_transcript_invalid", "stub_text"),
        (b"caf\xe9 " * 500, "invalid_utf8", None),
    ],
)
def test_invalid_existing_transcript_is_refused_and_untouched(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    recorded_ytdlp: Callable,
    snapshot_tree: Callable,
    content: bytes,
    code: str,
    reason: str | None,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(content)
    recorded_ytdlp(100.0)
    before = snapshot_tree(vault)
    status, result = run_fetch(capsys, out, "--existing-source", "youtube_auto")
    assert status == 2 and result["error"]["code"] == code
    if reason:
        assert result["reason"] == reason
    after = snapshot_tree(vault)
    assert {k: v for k, v in after.items() if not k.endswith(".lock")} == before


def test_stricter_min_words_rejects_existing_but_never_replaces(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    recorded_ytdlp: Callable,
    snapshot_file: Callable,
) -> None:
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(caption_text().encode())
    before = snapshot_file(out)
    recorded_ytdlp(100.0)
    code, result = run_fetch(
        capsys,
        out,
        "--existing-source",
        "manual",
        "--duration-seconds",
        "100",
        "--min-words",
        "500",
    )
    assert code == 2 and result["error"]["code"] == "existing_transcript_invalid"
    assert result["reason"] == "too_few_words"
    assert snapshot_file(out) == before
    assert not (vault / f"{VIDEO_ID}.quality.json").exists()


def test_forced_refetch_without_usable_timing_removes_stale_sidecar(
    vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    youtube_replay: Callable,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rvault_transcript import probe

    # A long caption track (420 words) generated into a copy of the success scenario.
    scenario = tmp_path / "long"
    shutil.copytree(FIXTURES / "youtube" / "success", scenario)
    snippets = "".join(
        f'<text start="{i * 2}.0" dur="2.5">sentence number {i} is spoken here</text>'
        for i in range(70)
    )
    (scenario / "timedtext.xml").write_text(f"<transcript>{snippets}</transcript>")
    out = vault / f"{VIDEO_ID}.txt"
    out.write_bytes(b"old text " * 500)
    stale = vault / f"{VIDEO_ID}.segments.json"
    stale.write_bytes(b'{"schema_version": 1, "segments": []}\n')

    def unavailable(video_id: str) -> Any:
        raise probe.ProbeError("metadata_unavailable", "offline")

    youtube_replay(scenario)
    monkeypatch.setattr(probe, "probe_youtube", unavailable)
    code, result = run_fetch(capsys, out, "--existing-source", "youtube_auto", "--force")
    assert code == 0, result
    assert result["method"] == "captions" and result["word_count"] == 420
    assert result["timed_path"] is None
    assert result["timing_status"]["code"] == "duration_untrusted"
    assert not stale.exists()
    assert result["write"]["removed"][0]["name"] == f"{VIDEO_ID}.segments.json"
    assert out.read_bytes().startswith(b"sentence number 0 is spoken here\n")
