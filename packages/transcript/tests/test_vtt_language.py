"""The language of imported captions: claimed by header and name, read from the text.

A Spanish caption file saved as ``*.en.vtt`` with ``Language: en`` used to
import as English. Now lingua reads the text; a claim it contradicts is
refused with the detected language named and nothing written, and
``--language`` states the language when the operator knows better.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_testkit.transcript.languages import caption_lines, webvtt
from rvault_transcript.api import read_quality
from rvault_transcript.language import Claim, Detection, LanguageMismatch, resolve_language
from rvault_transcript.text_language import detect_text_languages, vtt_claims

# 40 lines of about 12 words: over the 400-word floor without a duration.
LINES = 40


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    directory = tmp_path / "transcripts"
    directory.mkdir()
    return directory


def test_spanish_captions_named_english_are_reported_as_spanish(
    vault: Path, cli: Callable, snapshot_tree: Callable
) -> None:
    vtt = vault / "charla.en.vtt"
    vtt.write_text(webvtt(caption_lines("es", LINES), header_language="en"), encoding="utf-8")
    before = snapshot_tree(vault)
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "charla.txt")
    assert result.returncode == 2, result.stdout
    document = result.json
    assert document["error"]["code"] == "language_mismatch"
    assert document["language"] == "es"
    assert document["detected"]["languages"] == [{"language": "es", "share": 1.0}]
    assert document["claimed"] == [
        {"language": "en", "source": "vtt_header"},
        {"language": "en", "source": "vtt_file_name"},
    ]
    assert "--language es" in document["hint"]
    assert snapshot_tree(vault) == before


def test_the_operator_states_the_language_and_both_are_recorded(vault: Path, cli: Callable) -> None:
    vtt = vault / "charla.en.vtt"
    vtt.write_text(webvtt(caption_lines("es", LINES), header_language="en"), encoding="utf-8")
    result = cli(
        "rvault-transcript", "vtt-cleanup", vtt, vault / "charla.txt", "--language", "es"
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["language"] == "es"
    receipt = json.loads((vault / "charla.quality.json").read_bytes())
    assert receipt["schema_version"] == 2
    assert receipt["language"] == {
        "language": "es",
        "claimed": [
            {"language": "es", "source": "argument"},
            {"language": "en", "source": "vtt_header"},
            {"language": "en", "source": "vtt_file_name"},
        ],
        "detected": {
            "detector": "lingua",
            "languages": [{"language": "es", "share": 1.0}],
            "mixed": False,
        },
    }
    assert read_quality(vault / "charla.txt").usable


def test_a_claim_the_text_confirms_keeps_its_tag(vault: Path, cli: Callable) -> None:
    vtt = vault / "talk.en.vtt"
    vtt.write_text(webvtt(caption_lines("en", LINES), header_language="en-GB"), encoding="utf-8")
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["language"] == "en-GB"


def test_without_a_claim_the_detected_language_is_recorded(vault: Path, cli: Callable) -> None:
    vtt = vault / "vortrag.vtt"
    vtt.write_text(webvtt(caption_lines("de", LINES)), encoding="utf-8")
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "vortrag.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["language"] == "de"


def test_mixed_captions_record_both_languages_in_the_quality_receipt(
    vault: Path, cli: Callable
) -> None:
    vtt = vault / "talk.en.vtt"
    lines = caption_lines("en", 30) + caption_lines("es", 12)
    vtt.write_text(webvtt(lines, header_language="en"), encoding="utf-8")
    result = cli("rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["language"] == "en"
    detected = read_quality(vault / "talk.txt").receipt.language["detected"]
    assert detected["mixed"] is True
    assert [entry["language"] for entry in detected["languages"]] == ["en", "es"]


def test_an_invalid_language_argument_is_refused(vault: Path, cli: Callable) -> None:
    vtt = vault / "talk.vtt"
    vtt.write_text(webvtt(caption_lines("en", LINES)), encoding="utf-8")
    result = cli(
        "rvault-transcript", "vtt-cleanup", vtt, vault / "talk.txt", "--language", "english!"
    )  # fmt: skip
    assert result.returncode == 2 and result.json["error"]["code"] == "invalid_language"
    assert sorted(p.name for p in vault.iterdir()) == ["talk.vtt"]


# --------------------------------------------------------------------------- the rules


def test_mixed_text_reports_each_language_with_its_share() -> None:
    detection = detect_text_languages(caption_lines("en", 30) + caption_lines("es", 10))
    assert detection is not None and detection.mixed
    assert [code for code, _ in detection.shares] == ["en", "es"]
    english, spanish = (share for _, share in detection.shares)
    assert 0.65 < english < 0.85 and 0.15 < spanish < 0.35
    assert english + spanish == pytest.approx(1.0, abs=0.002)


def test_one_language_is_not_mixed() -> None:
    detection = detect_text_languages(caption_lines("de", 30))
    assert detection == Detection("lingua", (("de", 1.0),))
    assert not detection.mixed


def test_too_little_text_is_undecided() -> None:
    assert detect_text_languages(["Thank you."]) is None


CUE = "\n\n00:01.000 --> 00:02.000\n"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("WEBVTT\nLanguage: es-419" + CUE + "hola", "x.vtt", [("es-419", "vtt_header")]),
        ("WEBVTT" + CUE + "Language: de", "talk.en-US.vtt", [("en-US", "vtt_file_name")]),
        ("WEBVTT" + CUE + "hi", "talk.old.vtt", []),
        ("WEBVTT" + CUE + "hi", "talk.fil.vtt", [("fil", "vtt_file_name")]),
        ("WEBVTT\nLanguage: ???" + CUE + "hi", "talk.vtt", []),
    ],
)
def test_claims_come_from_the_header_block_and_the_name(
    text: str, name: str, expected: list[tuple[str, str]]
) -> None:
    assert [(c.language, c.source) for c in vtt_claims(text, name)] == expected


def test_claims_compare_by_primary_subtag_and_alias() -> None:
    hebrew = Detection("lingua", (("he", 1.0),))
    assert resolve_language([Claim("iw", "caption_track")], hebrew) == "iw"
    assert resolve_language([], hebrew) == "he"
    with pytest.raises(LanguageMismatch) as raised:
        resolve_language([Claim("en", "vtt_header"), Claim("he", "vtt_file_name")], hebrew)
    assert [c.source for c in raised.value.claims] == ["vtt_header"]


def test_claims_that_disagree_without_a_detection_are_a_mismatch() -> None:
    with pytest.raises(LanguageMismatch) as raised:
        resolve_language([Claim("en", "vtt_header"), Claim("de", "vtt_file_name")], None)
    assert raised.value.detection is None and "too short" in raised.value.message
    assert resolve_language([Claim("en", "vtt_header")], None) == "en"
    assert json.dumps(Detection("lingua", (("en", 1.0),)).to_dict(), sort_keys=True) == (
        '{"detector": "lingua", "languages": [{"language": "en", "share": 1.0}], "mixed": false}'
    )
