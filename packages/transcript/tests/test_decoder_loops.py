"""Decoder loops are not transcripts: fresh Whisper output and existing text alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_transcript import whisper
from rvault_transcript.api import read_quality
from rvault_transcript.cli import main
from rvault_transcript.text import TextRefusal, decoder_loop, judge_text, words

SPEECH = (Path(__file__).resolve().parents[1] / "benchmarks" / "speech_text.txt").read_text()


def test_a_word_repeated_in_a_loop_is_refused() -> None:
    assert (
        decoder_loop("and then " + "tzufafin, " * 24) == "a 1-word unit repeats 24 times in a row"
    )
    with pytest.raises(TextRefusal) as raised:
        judge_text(SPEECH + " tzufafin," * 24, 400)
    assert raised.value.code == "decoder_loop"


def test_a_phrase_repeated_in_a_loop_is_refused() -> None:
    looped = "we will see. " * 8
    assert decoder_loop(looped) == "a 3-word unit repeats 8 times in a row"
    # Four repeats of a long phrase in one segment: the compression ratio says loop.
    segment = "so I think " + "I'm going to go ahead and do that right now. " * 4
    assert "compresses" in str(decoder_loop(segment))


@pytest.mark.parametrize(
    "text",
    [
        SPEECH,
        "No, no, no, no. That is not what I said.",
        "very very very very very very very very very good",  # nine, not ten
        " ".join(f"item{i}" for i in range(420)),  # an enumeration compresses but never repeats
        "-" * 400 + "\n" + SPEECH,  # a separator line is no speech
    ],
)
def test_human_repetition_is_not_a_loop(text: str) -> None:
    assert decoder_loop(text) is None


@pytest.mark.parametrize(
    ("token", "count"),
    [
        ("state-of-the-art", 1),
        ("don't", 1),
        ("speakers'", 1),
        ("42", 1),
        ("3.5", 1),
        ("1,000", 1),
        ("20%", 1),
        ("[Music]", 1),
        ("-", 0),
        ("--", 0),
        ("\u2014", 0),
        ("...", 0),
        ("&", 0),
        ("'", 0),
    ],
)
def test_the_word_rule_is_the_one_the_quality_schema_states(token: str, count: int) -> None:
    from rvault_contracts.schemas import load_schema

    description = load_schema("transcript-quality", 1)["description"]
    assert token in description  # the schema names every case this test checks
    assert len(words(f"before {token} after")) == 2 + count


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


def test_fresh_whisper_loop_fails_the_policy(
    vault: Path,
    speech_wav: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot_tree: Callable,
) -> None:
    speech = [(line, i * 5.0, i * 5.0 + 4.5) for i, line in enumerate(SPEECH.splitlines()) if line]
    looped = [*speech, ("tzufafin, " * 24, 900.0, 930.0)]

    def transcribe(source: Any, **options: Any) -> whisper.WhisperResult:
        return whisper.WhisperResult("en", 930.0, looped, "fake", "cpu", 0.99)

    monkeypatch.setattr(whisper, "transcribe", transcribe)
    before = snapshot_tree(vault)
    code = main(["fetch", "talk", "--audio", str(speech_wav), "--out", str(vault / "talk.txt"),
                 "--existing-source", "none"])  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    assert code == 2 and document["error"]["code"] == "transcript_quality_failed"
    assert document["reason"] == "decoder_loop"
    assert snapshot_tree(vault) == before


def test_an_existing_loop_is_refused_and_kept_byte_for_byte(
    vault: Path, capsys: pytest.CaptureFixture[str], snapshot_tree: Callable
) -> None:
    out = vault / "RhEtOr1c_01.txt"
    out.write_text(SPEECH + "\n" + "thank you. " * 12 + "\n")
    before = snapshot_tree(vault)
    code = main(["fetch", "RhEtOr1c_01", "--out", str(out), "--existing-source", "unknown"])
    document = json.loads(capsys.readouterr().out)
    assert code == 2 and document["error"]["code"] == "existing_transcript_invalid"
    assert document["reason"] == "decoder_loop"
    assert snapshot_tree(vault) == before


def test_a_receipt_over_a_loop_is_not_quality(vault: Path) -> None:
    from rvault_contracts.canonical import sha256_bytes

    out = vault / "talk.txt"
    data = (SPEECH + "\n" + "tzufafin, " * 24 + "\n").encode()
    out.write_bytes(data)
    forged = {
        "schema_version": 1,
        "transcript_sha256": sha256_bytes(data),
        "policy": {"schema_version": 1, "min_words": 400, "duration_seconds": None},
        "provenance": {"kind": "fixed_default"},
    }
    (vault / "talk.quality.json").write_text(json.dumps(forged))
    reading = read_quality(out)
    assert not reading.usable and reading.code == "quality_policy_failed"
    assert "decoder loop" in reading.message
