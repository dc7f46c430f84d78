"""More generated decks: the benchmark shape at 20 slides, gradients, fingerprints."""

from __future__ import annotations

import copy
import io
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.oxml import parse_xml
from rvault_pptx_evidence import api
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_pptx_evidence.ooxml import NS, qn
from rvault_testkit.pptx_evidence import sample_decks


def test_benchmark_shaped_deck_counts(tmp_path: Path, schema_valid: Any) -> None:
    deck = tmp_path / "bench20.pptx"
    deck.write_bytes(sample_decks.benchmark_deck(20))
    doc = extract_path(deck, "bench20.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(doc)
    assert api.classify(doc).status == api.CURRENT
    slides = doc["per_slide_visual"]
    assert len(slides) == doc["slide_count"] == 20
    assert all(s["has_speaker_notes"] for s in slides)
    tables = [
        s["slide_number"]
        for s in slides
        if any(x["graphic_frame_type"] == "table" for x in s["shapes_summary"])
    ]
    groups = [
        s["slide_number"]
        for s in slides
        if any(x["shape_type"] == "GROUP (6)" for x in s["shapes_summary"])
    ]
    pictures = [s["slide_number"] for s in slides if s["has_image"]]
    timed = [s["slide_number"] for s in slides if s["native_timing"]["timing_element_present"]]
    assert tables == [10, 20]
    assert groups == [7, 14]
    assert pictures == [3, 6, 9, 12, 15, 18]
    assert timed == [5, 10, 15, 20]
    low = [s["slide_number"] for s in slides if s["text_extraction_confidence"] == "low"]
    assert low == [7, 10, 14, 20]
    summary = doc["native_timing_summary"]
    assert summary["slides_with_transitions"] == 4 and summary["transition_count"] == 4
    assert summary["animation_behavior_counts"]["total"] == 4 * 6
    assert summary["build_entry_counts"] == {
        "paragraph": 4,
        "diagram": 4,
        "ole_chart": 0,
        "graphic": 0,
        "total": 8,
    }
    assert summary["visibility_set_action_count"] == 4 and summary["set_action_count"] == 8
    assert doc["global_design"]["fonts_used"] == {"Bangers": 20}
    assert (
        slides[0]["text_content_preview"] == "Slide 1\nPoint one of slide 1\nPoint two\nPoint three"
    )


def test_gradient_and_unknown_backgrounds(tmp_path: Path, schema_valid: Any) -> None:
    prs = Presentation()
    gradient = prs.slides.add_slide(prs.slide_layouts[6])
    gradient.background.fill.gradient()
    gradient.background.fill.gradient_stops[0].color.rgb = RGBColor(0x12, 0x34, 0x56)
    nofill = prs.slides.add_slide(prs.slide_layouts[6])
    nofill.background.fill.background()  # a:noFill: no colour claim can be made
    deck = tmp_path / "bg.pptx"
    prs.save(str(deck))
    doc = extract_path(deck, "bg.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(doc)
    first, second = doc["per_slide_visual"]
    assert (first["background_type"], first["background_color_hex"]) == ("gradient", "#123456")
    assert (second["background_type"], second["background_color_hex"]) == ("unknown", None)
    assert doc["aspect_ratio"] == "4:3"


def test_fingerprint_is_bytes_not_path(
    rich_deck: Path, rich_doc: dict[str, Any], tmp_path: Path
) -> None:
    copy = tmp_path / "elsewhere" / "renamed.pptx"
    copy.parent.mkdir()
    shutil.copyfile(rich_deck, copy)
    doc = extract_path(copy, "elsewhere/renamed.pptx", ocr_mode=OCR_DISABLED)
    assert doc["input_fingerprint"] == rich_doc["input_fingerprint"]
    assert doc["per_slide_visual"] == rich_doc["per_slide_visual"]
    assert doc["pptx_path"] != rich_doc["pptx_path"]


def _picture_slide(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    slide = doc["per_slide_visual"][1]
    return slide, next(s for s in slide["shapes_summary"] if s["is_picture"])


def test_non_raster_picture_is_unreadable(
    picture_deck: Path, tmp_path: Path, schema_valid: Any
) -> None:
    raw = picture_deck.read_bytes()
    member = sample_decks.first_media_member(raw)
    deck = tmp_path / "vector.pptx"
    deck.write_bytes(sample_decks.replace_member(raw, member, b"%!PS-Adobe vector, not a raster"))
    doc = extract_path(deck, "vector.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(doc)
    slide, picture = _picture_slide(doc)
    assert picture["picture_asset_status"] == "available"  # the bytes exist and are bound
    assert [u["content_type"] for u in slide["unsupported_content"]] == ["unreadable_picture"]
    ocr = next(c for c in slide["text_channels"] if c["channel"] == "picture_ocr")
    assert (ocr["status"], ocr["reason"]) == ("unavailable", "no_readable_asset")


def test_picture_without_embedded_blob_is_unavailable(
    picture_deck: Path, tmp_path: Path, schema_valid: Any
) -> None:
    raw = picture_deck.read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        xml = zf.read("ppt/slides/slide2.xml")
    deck = tmp_path / "dangling.pptx"
    broken = re.sub(rb'r:embed="rId\d+"', b'r:embed="rId999"', xml)
    deck.write_bytes(sample_decks.replace_member(raw, "ppt/slides/slide2.xml", broken))
    doc = extract_path(deck, "dangling.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(doc)
    slide, picture = _picture_slide(doc)
    assert (
        picture["picture_asset_status"],
        picture["picture_part_name"],
        picture["picture_asset_sha256"],
    ) == (
        "unavailable",
        None,
        None,
    )
    assert slide["render_required_reasons"] == ["unreadable_picture"]
    assert api.classify(doc).status == api.CURRENT


def test_alternate_content_shapes_are_inventoried_once(tmp_path: Path, schema_valid: Any) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    picture = slide.shapes.add_picture(
        io.BytesIO(sample_decks.png_bytes((5, 5, 5))), 0, 0, 914400, 914400
    )
    element = picture._element
    sp_tree = element.getparent()
    wrapper = parse_xml(
        f'<mc:AlternateContent xmlns:mc="{NS["mc"]}" xmlns:p="{NS["p"]}" xmlns:a="{NS["a"]}">'
        '<mc:Choice Requires="a14"><p:graphicFrame><p:nvGraphicFramePr>'
        '<p:cNvPr id="9" name="Equation 9"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm/><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2010/main"/>'
        "</a:graphic>"
        "</p:graphicFrame></mc:Choice><mc:Fallback/></mc:AlternateContent>"
    )
    sp_tree.remove(element)
    wrapper.find(qn("mc:Fallback")).append(element)
    sp_tree.append(wrapper)
    deck = tmp_path / "alternate.pptx"
    prs.save(str(deck))
    doc = extract_path(deck, "alternate.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(doc)
    record = doc["per_slide_visual"][0]
    assert (record["shape_count"], record["shape_count_recursive"]) == (1, 1)
    assert [s["name"] for s in record["shapes_summary"]] == [picture.name]
    assert record["shapes_summary"][0]["is_picture"] is True
    assert record["text_extraction_confidence"] == "low"


def test_ocr_receipts_must_bind_available_assets(rich_doc: dict[str, Any]) -> None:
    document = copy.deepcopy(rich_doc)
    slide = document["per_slide_visual"][3]
    receipt = next(c for c in slide["text_channels"] if c["channel"] == "picture_ocr")[
        "ocr_receipts"
    ][0]
    receipt["asset_sha256"] = "a" * 64
    reading = api.classify(document)
    assert reading.status == api.INVALID
    assert any("picture_ocr receipt" in issue for issue in reading.issues)
