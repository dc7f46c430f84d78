"""OCR receipts with the real tesseract engine on text rendered into images."""

from __future__ import annotations

import stat
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from rvault_pptx_evidence import api, ocr_engine
from rvault_pptx_evidence.ocr_engine import MAX_RECOVERED_CHARS, Engine, recognize
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks


@pytest.fixture(scope="module")
def ocr_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    deck = tmp_path_factory.mktemp("ocr") / "ocr.pptx"
    deck.write_bytes(sample_decks.ocr_deck())
    return deck


@pytest.fixture(scope="module")
def ocr_doc(ocr_deck: Path) -> dict[str, Any]:
    result = run_cli("rvault-pptx", "extract", ocr_deck)
    assert result.returncode == 0, result.stderr
    assert "OCR receipts 6, trustworthy 4, failed 1" in result.stderr
    return result.json


def _channel(slide: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in slide["text_channels"] if c["channel"] == name)


def _words(text: str) -> set[str]:
    return set(text.split())


def test_picture_receipts_recover_the_rendered_words(
    ocr_doc: dict[str, Any], schema_valid: Any
) -> None:
    schema_valid(ocr_doc)
    assert api.classify(ocr_doc).status == api.CURRENT
    engine = ocr_engine.detect()
    assert engine is not None
    slide = ocr_doc["per_slide_visual"][0]
    assert slide["text_extraction_method"] == "shapes+ocr"
    assert slide["text_content_preview"] == ""  # native channels read nothing here
    channel = _channel(slide, "picture_ocr")
    assert (channel["attempted"], channel["status"], channel["reason"]) == (True, "extracted", None)
    assert channel["engine"] == "tesseract" and channel["engine_version"] == engine.version
    assert 0 <= channel["result_confidence"] <= 100
    receipts = channel["ocr_receipts"]
    assert [r["result_status"] for r in receipts] == [
        "text_recovered",
        "text_recovered",
        "genuine_empty",
    ]
    pictures = [s for s in slide["shapes_summary"] if s["is_picture"]]
    for receipt, picture in zip(receipts, pictures, strict=True):
        assert receipt["part_name"] == picture["picture_part_name"]
        assert receipt["asset_sha256"] == picture["picture_asset_sha256"]
        assert receipt["shape_path"] == picture["shape_path"]
        assert receipt["engine_version"] == engine.version
    first, second, empty = receipts
    expected = [" ".join(sample_decks.OCR_PHRASES[0]), " ".join(sample_decks.OCR_PHRASES[1])]
    for receipt, phrase in zip((first, second), expected, strict=True):
        assert receipt["trustworthy_text"] is True
        assert _words(phrase) <= _words(receipt["recovered_text"])
    assert (empty["trustworthy_text"], empty["recovered_text"], empty["result_confidence"]) == (
        False,
        "",
        None,
    )
    assert slide["ocr_text"] == channel["text"]
    assert slide["has_extracted_text"] is True


def test_one_failed_asset_makes_the_channel_partial(ocr_doc: dict[str, Any]) -> None:
    slide1, slide2 = ocr_doc["per_slide_visual"][:2]
    channel = _channel(slide2, "picture_ocr")
    assert (channel["status"], channel["reason"]) == ("partial", "partial_ocr_results")
    repeated, broken = channel["ocr_receipts"]
    # The same asset on two slides: identical outcome (OCR ran once per digest).
    assert repeated == _channel(slide1, "picture_ocr")["ocr_receipts"][0] | {
        "shape_path": repeated["shape_path"]
    }
    assert broken["result_status"] == "failed" and broken["trustworthy_text"] is False
    assert broken["error"] and broken["recovered_text"] == ""


def test_background_image_ocr_channel(ocr_doc: dict[str, Any]) -> None:
    slide = ocr_doc["per_slide_visual"][2]
    assert slide["background_type"] == "image"
    assert slide["render_required_reasons"] == ["background_image"]  # OCR is not layout
    channel = _channel(slide, "background_image_ocr")
    (receipt,) = channel["ocr_receipts"]
    assert receipt["part_name"] == slide["background_part_name"]
    assert receipt["asset_sha256"] == slide["background_asset_sha256"]
    assert receipt["shape_path"] is None
    assert _words(" ".join(sample_decks.OCR_PHRASES[2])) <= _words(receipt["recovered_text"])


def test_no_ocr_gives_skipped_receipts(ocr_deck: Path, schema_valid: Any) -> None:
    result = run_cli("rvault-pptx", "extract", ocr_deck, "--no-ocr")
    assert result.returncode == 0, result.stderr
    document = result.json
    schema_valid(document)
    for slide in document["per_slide_visual"]:
        assert slide["text_extraction_method"] == "shapes" and slide["ocr_text"] == ""
        for channel in slide["text_channels"]:
            if channel["channel"].endswith("_ocr"):
                assert (channel["status"], channel["reason"]) == ("skipped", "ocr_disabled")
                assert all(r["result_status"] == "skipped" for r in channel["ocr_receipts"])
                assert all(r["attempted"] is False for r in channel["ocr_receipts"])


def test_receipt_is_the_same_with_and_without_ocr(ocr_deck: Path, ocr_doc: dict[str, Any]) -> None:
    """The audit binds the deck, not the engine: persistence may re-extract with --no-ocr."""
    plain = run_cli("rvault-pptx", "extract", ocr_deck, "--no-ocr").json
    assert plain["native_deck_audit"] == ocr_doc["native_deck_audit"]


def _fake_engine(tmp_path: Path, body: str) -> Engine:
    script = tmp_path / "fake-tesseract"
    script.write_text(f"#!{sys.executable}\nimport sys\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return Engine(str(script), "0.0-test")


def _tsv(words: list[tuple[str, float]]) -> str:
    columns = "level page_num block_num par_num line_num word_num left top width height conf text"
    header = columns.replace(" ", "\t")
    rows = [f"5\t1\t1\t1\t1\t{i}\t0\t0\t1\t1\t{c}\t{w}" for i, (w, c) in enumerate(words, 1)]
    return "\n".join([header, *rows])


def test_recovered_text_is_capped(tmp_path: Path) -> None:
    tsv = _tsv([("word" * 3, 95.0)] * 1000)
    engine = _fake_engine(tmp_path, f"sys.stdin.buffer.read(); print({tsv!r})")
    result = recognize(engine, sample_decks.png_bytes((1, 1, 1)))
    assert result.status == "text_recovered" and result.trustworthy
    assert len(result.text) == MAX_RECOVERED_CHARS


def test_low_word_confidence_is_not_trustworthy(tmp_path: Path) -> None:
    tsv = _tsv([("blurry", 41.5), ("words", 60.0)])
    engine = _fake_engine(tmp_path, f"sys.stdin.buffer.read(); print({tsv!r})")
    result = recognize(engine, sample_decks.png_bytes((1, 1, 1)))
    assert (result.status, result.confidence, result.trustworthy) == (
        "low_confidence_text",
        50.75,
        False,
    )


def test_engine_failure_is_a_closed_error(tmp_path: Path) -> None:
    engine = _fake_engine(tmp_path, "sys.stderr.write('Traceback: secret'); sys.exit(3)")
    result = recognize(engine, sample_decks.png_bytes((1, 1, 1)))
    assert (result.status, result.error, result.text) == ("failed", "engine_exit_3", "")


def test_oversized_image_is_not_handed_to_the_engine(tmp_path: Path) -> None:
    engine = _fake_engine(tmp_path, "raise SystemExit('must not run')")

    # Only a header: 20000 x 20000 pixels declared, a decompression bomb for the engine.
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    ihdr = struct.pack(">IIBBBBB", 20_000, 20_000, 8, 0, 0, 0, 0)
    big = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
    assert recognize(engine, big).error == "image_too_large"
