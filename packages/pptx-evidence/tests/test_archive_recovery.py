"""Bad-CRC media is recovered in memory only; structural corruption refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.cli import Refusal
from rvault_pptx_evidence import api
from rvault_pptx_evidence.archive import PLACEHOLDER_PNG, PLACEHOLDER_SHA256, open_archive
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_testkit.pptx_evidence import sample_decks


def test_placeholder_is_a_transparent_png() -> None:
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(PLACEHOLDER_PNG))
    assert image.size == (1, 1) and image.mode == "RGBA" and image.getpixel((0, 0))[3] == 0


def test_bad_crc_media_recovered_in_memory(
    picture_deck: Path, tmp_path: Path, snapshot_file: Any, schema_valid: Any
) -> None:
    member = sample_decks.first_media_member(picture_deck.read_bytes())
    damaged = tmp_path / "damaged.pptx"
    damaged.write_bytes(sample_decks.corrupt_member_crc(picture_deck.read_bytes(), member))
    before = snapshot_file(damaged)
    doc = extract_path(damaged, "damaged.pptx", ocr_mode=OCR_DISABLED)
    assert snapshot_file(damaged) == before  # the source is never rewritten
    schema_valid(doc)
    assert doc["archive_recovery"] == [
        {
            "schema_version": 1,
            "part_name": member,
            "member_kind": "embedded_media",
            "error_type": "crc_mismatch",
            "status": "recovered_with_placeholder_asset",
            "content_replaced": True,
            "replacement_sha256": PLACEHOLDER_SHA256,
        }
    ]
    assert doc["corrupt_assets"] == [
        {"part_name": member, "error_type": "crc_mismatch", "status": "recovered_with_placeholder"}
    ]
    # The fingerprint is over the damaged source bytes, before recovery.
    assert doc["input_fingerprint"]["size_bytes"] == len(before.data)
    healthy, pictured = doc["per_slide_visual"]
    assert healthy["text_content_preview"] == "Healthy text survives"
    picture = next(s for s in pictured["shapes_summary"] if s["is_picture"])
    assert picture["picture_asset_status"] == "corrupt"
    assert picture["picture_part_name"] == member
    assert picture["picture_asset_sha256"] == PLACEHOLDER_SHA256
    assert [u["content_type"] for u in pictured["unsupported_content"]] == [
        "corrupt_embedded_asset"
    ]
    assert pictured["render_required_reasons"] == ["corrupt_embedded_asset"]
    ocr = next(c for c in pictured["text_channels"] if c["channel"] == "picture_ocr")
    assert (ocr["status"], ocr["reason"], ocr["ocr_receipts"]) == (
        "unavailable",
        "no_readable_asset",
        [],
    )
    reading = api.classify(doc)
    assert reading.status == api.CURRENT and reading.degraded is True
    assert reading.usable_for_current_analysis is False


@pytest.mark.parametrize(
    "member",
    [
        "ppt/slides/slide1.xml",
        "ppt/slides/_rels/slide1.xml.rels",
        "[Content_Types].xml",
        "ppt/slideLayouts/slideLayout1.xml",
    ],
)
def test_bad_crc_structural_member_refuses(picture_deck: Path, member: str) -> None:
    damaged = sample_decks.corrupt_member_crc(picture_deck.read_bytes(), member)
    with pytest.raises(Refusal) as refused:
        open_archive(damaged)
    assert refused.value.code == "structural_member_corrupt"
    assert refused.value.path == member


def test_malformed_structural_xml_refuses(picture_deck: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pptx"
    broken.write_bytes(
        sample_decks.replace_member(picture_deck.read_bytes(), "ppt/slides/slide1.xml", b"<p:sld")
    )
    with pytest.raises(Refusal) as refused:
        extract_path(broken, "broken.pptx", ocr_mode=OCR_DISABLED)
    assert refused.value.code == "structural_member_corrupt"


def test_tampered_corrupt_binding_is_invalid(picture_deck: Path, tmp_path: Path) -> None:
    member = sample_decks.first_media_member(picture_deck.read_bytes())
    damaged = tmp_path / "damaged.pptx"
    damaged.write_bytes(sample_decks.corrupt_member_crc(picture_deck.read_bytes(), member))
    doc = extract_path(damaged, "damaged.pptx", ocr_mode=OCR_DISABLED)
    picture = next(s for s in doc["per_slide_visual"][1]["shapes_summary"] if s["is_picture"])
    picture["picture_asset_sha256"] = "0" * 64
    reading = api.classify(doc)
    assert reading.status == api.INVALID
    assert any("not bound to archive_recovery" in issue for issue in reading.issues)
