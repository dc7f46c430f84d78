"""A recording that is English, then German: reported mixed and transcribed per language.

Detection from the first speech used to call it ``en (p=1.00)`` and its
German half came out as invented English. Now every speech window is
classified, the shares are reported in the quality receipt, and each
language span is transcribed in its own language. The speech is espeak-ng
(two sentences per language); ``fetch`` runs in this process so the models
load once for the module.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts.cli import Refusal
from rvault_testkit.transcript.languages import caption_lines, spoken_wav
from rvault_transcript import models
from rvault_transcript.fetch import FetchRequest, fetch
from rvault_transcript.speech_language import SAMPLE_RATE, Window, assign, spans_of

ENGLISH = " ".join(caption_lines("en", 2, start=1))
GERMAN = " ".join(caption_lines("de", 2, start=2))


@pytest.fixture(scope="module")
def english_then_german(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mixed") / "talk.wav"
    return spoken_wav(out, [("en", ENGLISH), ("de", GERMAN)], gap_seconds=1.0)


def _duration(path: Path) -> float:
    import wave

    with wave.open(str(path), "rb") as reader:
        return reader.getnframes() / reader.getframerate()


def test_english_then_german_is_reported_mixed_with_both_languages(
    tmp_path: Path, english_then_german: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "transcripts"
    vault.mkdir()
    out = vault / "talk.txt"
    request = FetchRequest(
        "talk", out, "unknown", audio=english_then_german,
        duration_seconds=round(_duration(english_then_german), 2),
    )  # fmt: skip
    result = fetch(request, progress=lambda message: print(message))
    stderr = capsys.readouterr().out
    assert "mixed-language audio, 2 spans" in stderr, stderr
    receipt = json.loads((vault / "talk.quality.json").read_bytes())
    detected = receipt["language"]["detected"]
    assert detected["detector"] == "whisper" and detected["mixed"] is True
    shares = {entry["language"]: entry["share"] for entry in detected["languages"]}
    assert set(shares) == {"en", "de"}, shares
    assert all(0.3 < share < 0.7 for share in shares.values()), shares
    assert result["language"] == detected["languages"][0]["language"]
    text = out.read_text(encoding="utf-8").lower()
    english, german = text.index("speaker"), text.index("entscheidet")
    assert english < german, text  # each half in its own language, in order
    for word in ("opening", "audience", "minute", "entschuldigung"):
        assert word in text, text
    timing = json.loads((vault / "talk.segments.json").read_bytes())
    times = [(seg["start_seconds"], seg["end_seconds"]) for seg in timing["segments"]]
    # shifted back onto the recording: in order, the German after the English, inside it
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(times))
    assert times[-1][0] > 8.0 and times[-1][1] <= _duration(english_then_german) + 0.5


def test_an_english_only_model_refuses_mixed_speech(
    tmp_path: Path, english_then_german: Path, snapshot_tree: Callable
) -> None:
    vault = tmp_path / "transcripts"
    vault.mkdir()
    before = snapshot_tree(vault)
    request = FetchRequest(
        "talk", vault / "talk.txt", "unknown", audio=english_then_german,
        model=str(models.english_model_dir()),
    )  # fmt: skip
    with pytest.raises(Refusal) as raised:
        fetch(request, progress=lambda _message: None)
    assert raised.value.code == "language_unsupported"
    assert raised.value.context["language"] == "de"
    assert {e["language"] for e in raised.value.context["detected"]["languages"]} == {"en", "de"}
    assert snapshot_tree(vault) == before


# --------------------------------------------------------------------------- the rules


def _windows(*seconds: tuple[float, float]) -> list[Window]:
    return [Window(round(a * SAMPLE_RATE), round(b * SAMPLE_RATE)) for a, b in seconds]


def test_uncertain_and_unclassified_windows_take_the_previous_language() -> None:
    found = {0: ("en", 0.9), 2: ("de", 0.3), 3: ("de", 0.95), 4: ("de", 0.9), 6: ("en", 0.8)}
    assert assign(7, found) == ["en", "en", "en", "de", "de", "de", "en"]
    assert assign(3, {1: ("de", 0.9)}) == ["de", "de", "de"]  # before the first: the first
    assert assign(2, {0: ("fr", 0.2), 1: ("it", 0.4)}) == ["it", "it"]  # none sure: most probable


def test_a_single_window_the_windows_around_it_contradict_is_misheard() -> None:
    """Base hears Thai in one window of espeak-ng German (p 0.88): not a language span."""
    found = {0: ("de", 0.94), 1: ("th", 0.88), 2: ("la", 0.3), 3: ("de", 0.97), 4: ("la", 0.7)}
    assert assign(5, found) == ["de", "de", "de", "de", "la"]  # the last has one neighbour
    assert assign(2, {0: ("en", 0.9), 1: ("de", 0.9)}) == ["en", "de"]


def test_spans_split_in_the_middle_of_the_pause_and_cover_the_audio() -> None:
    windows = _windows((0.5, 4.0), (4.5, 8.0), (9.0, 12.0), (12.4, 15.0))
    total = 16 * SAMPLE_RATE
    spans = spans_of(windows, ["en", "en", "de", "de"], total)
    assert [(s.language, s.start / SAMPLE_RATE, s.end / SAMPLE_RATE) for s in spans] == [
        ("en", 0.0, 8.5),
        ("de", 8.5, 16.0),
    ]
