"""Exact facts of the rich generated deck: slides, shapes, channels, backgrounds."""

from __future__ import annotations

import copy
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_pptx_evidence import api
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_pptx_evidence.ooxml import URI_CHART, URI_DIAGRAM, URI_OLE, URI_TABLE
from rvault_pptx_evidence.versions import PIPELINE_VERSION, SCHEMA_VERSION
from rvault_testkit.pptx_evidence import sample_decks

TEXT_FIELDS = {"text_preview", "font_name", "font_size", "font_color", "bold", "italic"}
TABLE_FIELDS = {"table_rows", "table_columns", "table_text_preview", "table_fonts"}
PICTURE_FIELDS = {"picture_asset_status", "picture_part_name", "picture_asset_sha256"}


def _shape(slide: dict[str, Any], name: str) -> dict[str, Any]:
    matches = [s for s in slide["shapes_summary"] if s["name"] == name]
    assert len(matches) == 1, name
    return matches[0]


def test_document_validates_and_reads_back_as_current(
    rich_doc: dict[str, Any], schema_valid: Any
) -> None:
    schema_valid(rich_doc)
    reading = api.classify(rich_doc)
    assert reading.status == api.CURRENT
    assert reading.usable_for_current_analysis
    assert reading.issues == ()


def test_deck_level_fields(rich_doc: dict[str, Any], rich_deck: Any) -> None:
    data = rich_deck.read_bytes()
    assert rich_doc["schema_version"] == SCHEMA_VERSION == 5
    assert rich_doc["pipeline_version"] == PIPELINE_VERSION
    assert rich_doc["input_fingerprint"] == {
        "algorithm": "sha256",
        "digest": sha256_bytes(data),
        "size_bytes": len(data),
    }
    assert rich_doc["pptx_path"] == "talks/rich.pptx"
    assert rich_doc["slide_count"] == 8
    assert rich_doc["aspect_ratio"] == "16:9"
    assert (rich_doc["slide_width_inches"], rich_doc["slide_height_inches"]) == (13.33, 7.5)
    assert rich_doc["archive_recovery"] == [] and rich_doc["corrupt_assets"] == []
    layouts = rich_doc["template_layouts"]
    assert [layout["name"] for layout in layouts][:3] == [
        "Title Slide",
        "Title and Content",
        "Section Header",
    ]
    assert len(layouts) == 11 and {layout["master_index"] for layout in layouts} == {0}
    assert layouts[0]["placeholders"][:2] == [
        {"idx": 0, "type": "CENTER_TITLE"},
        {"idx": 1, "type": "SUBTITLE"},
    ]
    design = rich_doc["global_design"]
    assert design["fonts_used"] == {"Arial": 1, "Bangers": 1, "Georgia": 1}
    assert design["shape_types_used"] == {"CLOUD_CALLOUT (108)": 1, "EXPLOSION1 (89)": 1}
    assert design["color_sequence"] == [
        "#5B2C6F", "#FFFFFF", "#C0392B", "#C0392B", "#FFFFFF", "#FFFFFF", "#112233",
    ]  # fmt: skip
    assert design["background_colors"] == {"#112233": 1, "#5B2C6F": 1, "#C0392B": 2, "#FFFFFF": 3}


def test_part_names_bind_ordinals(rich_doc: dict[str, Any]) -> None:
    for number, slide in enumerate(rich_doc["per_slide_visual"], start=1):
        assert slide["slide_number"] == number
        assert slide["slide_part_name"] == f"ppt/slides/slide{number}.xml"
        assert slide["native_timing"]["provenance"]["part_name"] == slide["slide_part_name"]


def test_capabilities_gate_fields_on_every_shape(rich_doc: dict[str, Any]) -> None:
    seen = 0
    for slide in rich_doc["per_slide_visual"]:
        for shape in slide["shapes_summary"]:
            seen += 1
            keys = set(shape)
            assert (keys >= TEXT_FIELDS) is shape["has_text_frame"]
            assert not (TEXT_FIELDS & keys) or shape["has_text_frame"]
            assert (keys >= PICTURE_FIELDS) is shape["is_picture"]
            assert not (PICTURE_FIELDS & keys) or shape["is_picture"]
            is_table = shape["graphic_frame_type"] == "table"
            assert (keys >= TABLE_FIELDS) is is_table
            assert not (TABLE_FIELDS & keys) or is_table
            if not shape["is_graphic_frame"]:
                assert shape["graphic_frame_type"] is None and shape["graphic_data_uri"] is None
    assert seen == sum(s["shape_count_recursive"] for s in rich_doc["per_slide_visual"])


def test_title_slide(slide_of: Any) -> None:
    slide = slide_of(1)
    assert slide["background_type"] == "solid"
    assert slide["background_color_hex"] == "#5B2C6F"
    assert slide["background_asset_status"] == "not_applicable"
    assert slide["layout_name"] == "Title Slide"
    assert (slide["shape_count"], slide["shape_count_recursive"]) == (3, 3)
    assert slide["has_speaker_notes"] is True
    assert slide["footer_text"] == "@handle | #conf"
    assert slide["text_extraction_confidence"] == "high"
    assert slide["text_extraction_method"] == "shapes"
    assert slide["text_content_preview"] == "Talk Title\nSubtitle here\n@handle | #conf"
    assert [c["channel"] for c in slide["text_channels"]] == ["shape_text"] * 3
    assert slide["text_channels"][0] == {
        "channel": "shape_text",
        "text": "Talk Title",
        "confidence": "high",
        "status": "extracted",
        "provenance": {"source": "pptx_shape_text_frame", "shape_path": ["Title 1"]},
    }
    title = _shape(slide, "Title 1")
    assert title["shape_type"] == "PLACEHOLDER (14)"
    assert (title["font_name"], title["font_size"], title["font_color"]) == (
        "Bangers",
        36,
        "#FFFFFF",
    )
    assert (title["bold"], title["italic"]) == (True, False)
    # Inherited placeholder geometry comes from the layout.
    assert (title["left"], title["top"], title["width"], title["height"]) == (
        0.75,
        2.33,
        8.5,
        1.608,
    )
    subtitle = _shape(slide, "Subtitle 2")
    assert subtitle["font_name"] is None and subtitle["bold"] is None  # inherited: not guessed


def test_groups_and_tables_force_low(slide_of: Any) -> None:
    slide = slide_of(2)
    assert slide["text_extraction_confidence"] == "low"
    assert (slide["shape_count"], slide["shape_count_recursive"]) == (3, 6)
    cloud = _shape(slide, "Cloud Callout 4")
    assert cloud["shape_path"] == ["Group 1", "Group 3", "Cloud Callout 4"]
    assert cloud["group_depth"] == 2
    assert cloud["auto_shape_type"] == "CLOUD_CALLOUT (108)"
    assert (cloud["fill_color"], cloud["line_color"]) == ("#FFFFFF", "#000000")
    table = _shape(slide, "Table 5")
    assert table["graphic_frame_type"] == "table" and table["graphic_data_uri"] == URI_TABLE
    assert (table["table_rows"], table["table_columns"]) == (2, 3)
    assert table["table_fonts"] == ["Georgia"]
    channels = {c["channel"]: c for c in slide["text_channels"]}
    assert channels["table_cell_text"]["text"] == "r0c0 | r0c1 | r0c2\nr1c0 | r1c1 | r1c2"
    assert channels["table_cell_text"]["confidence"] == "medium"
    grouped = [c for c in slide["text_channels"] if c["channel"] == "group_container_text"]
    assert [c["text"] for c in grouped] == ["Grouped words", "Nested cloud"]
    assert grouped[1]["provenance"]["shape_path"] == ["Group 1", "Group 3", "Cloud Callout 4"]
    picture = _shape(slide, "Picture 6")
    blob = sample_decks.png_bytes((200, 10, 10))
    assert picture["picture_asset_status"] == "available"
    assert picture["picture_part_name"] == "ppt/media/image1.png"
    assert picture["picture_asset_sha256"] == sha256_bytes(blob)
    assert slide["image_area_ratio"] == round((4 * 3) / (13.333333 * 7.5), 4)
    # --no-ocr: the readable picture gets an explicit skipped receipt.
    ocr = channels["picture_ocr"]
    assert (ocr["attempted"], ocr["status"], ocr["reason"]) == (False, "skipped", "ocr_disabled")
    assert [r["result_status"] for r in ocr["ocr_receipts"]] == ["skipped"]
    assert ocr["ocr_receipts"][0]["part_name"] == "ppt/media/image1.png"
    assert ocr["ocr_receipts"][0]["asset_sha256"] == sha256_bytes(blob)
    assert slide["text_extraction_method"] == "shapes"
    assert slide["ocr_text"] == ""


def test_groups_require_a_render_and_table_cells_keep_their_position(slide_of: Any) -> None:
    """Nested groups: the text is read (medium) but the visible reading order
    is not proven, so the slide is render-required (``grouped_shapes``). Each
    table cell's text carries its 1-based row and column."""
    slide = slide_of(2)
    assert slide["render_required"] is True
    assert slide["render_required_reasons"] == ["grouped_shapes"]
    assert slide["unsupported_content"] == []
    table = next(c for c in slide["text_channels"] if c["channel"] == "table_cell_text")
    assert table["provenance"]["source"] == "pptx_table_cells"
    assert table["provenance"]["shape_path"] == ["Table 5"]
    assert table["provenance"]["cells"] == [
        {"row": r + 1, "column": c + 1, "row_span": 1, "column_span": 1, "text": f"r{r}c{c}"}
        for r in range(2)
        for c in range(3)
    ]
    others = [c for c in slide["text_channels"] if c["channel"] != "table_cell_text"]
    assert all("cells" not in c.get("provenance", {}) for c in others)


def test_unsupported_content_is_bound_to_uris(slide_of: Any) -> None:
    slide = slide_of(3)
    kinds = [
        (u["content_type"], u["shape_name"], u["graphic_data_uri"])
        for u in slide["unsupported_content"]
    ]
    assert kinds == [
        ("smartart", "Diagram 4", URI_DIAGRAM),
        ("chart", "Chart 3", URI_CHART),
        ("graphic_frame", "Mystery 6", None),
        ("graphic_frame", "Ink 7", "http://example.invalid/ink"),
        ("embedded_ole_object", "Object 6", URI_OLE),
        ("linked_ole_object", "Linked 9", URI_OLE),
    ]
    assert all(u["render_required"] for u in slide["unsupported_content"])
    assert slide["render_required"] is True and slide["has_unsupported_content"] is True
    assert slide["render_required_reasons"] == [
        "chart", "embedded_ole_object", "graphic_frame", "linked_ole_object", "smartart",
    ]  # fmt: skip
    mystery = _shape(slide, "Mystery 6")
    assert (mystery["graphic_frame_type"], mystery["graphic_data_uri"]) == ("graphic_frame", None)
    assert _shape(slide, "Object 6")["shape_type"] == "EMBEDDED_OLE_OBJECT (7)"
    assert _shape(slide, "Linked 9")["shape_type"] == "LINKED_OLE_OBJECT (10)"
    assert _shape(slide, "Chart 3")["shape_type"] == "CHART (3)"
    channel_names = [c["channel"] for c in slide["text_channels"]]
    assert "smartart_text" in channel_names and "chart_text" in channel_names
    smartart = next(c for c in slide["text_channels"] if c["channel"] == "smartart_text")
    assert (smartart["status"], smartart["text"], smartart["confidence"]) == (
        "requires_render",
        "",
        "low",
    )
    assert slide["text_extraction_confidence"] == "low"
    assert slide["background_type"] == "solid_from_layout"


def test_picture_only_slide_on_image_background(slide_of: Any) -> None:
    slide = slide_of(4)
    assert slide["background_type"] == "image"
    assert slide["background_asset_status"] == "available"
    assert slide["background_part_name"] == "ppt/media/image4.png"
    assert slide["background_asset_sha256"] == sha256_bytes(sample_decks.png_bytes((10, 10, 200)))
    assert slide["background_color_hex"] is None
    assert slide["image_area_ratio"] == 1.0
    assert slide["has_image"] is True and slide["has_text_frame_shapes"] is False
    assert slide["text_content_preview"] == "" and slide["has_extracted_text"] is False
    assert slide["text_extraction_confidence"] == "low"
    channels = {c["channel"]: c for c in slide["text_channels"]}
    assert set(channels) == {"picture_ocr", "background_image_ocr"}
    background = channels["background_image_ocr"]["ocr_receipts"]
    assert (
        background[0]["part_name"] == "ppt/media/image4.png" and background[0]["shape_path"] is None
    )


def test_inherited_backgrounds(slide_of: Any) -> None:
    assert (slide_of(5)["background_type"], slide_of(5)["background_color_hex"]) == (
        "solid_from_layout",
        "#C0392B",
    )
    # The default master's bgRef resolves through the theme (bg1 -> lt1 -> window white).
    assert (slide_of(6)["background_type"], slide_of(6)["background_color_hex"]) == (
        "solid_from_master",
        "#FFFFFF",
    )
    assert (slide_of(8)["background_type"], slide_of(8)["background_color_hex"]) == (
        "pattern",
        "#112233",
    )


def test_media_slide(slide_of: Any) -> None:
    slide = slide_of(7)
    movie = slide["shapes_summary"][0]
    assert movie["shape_type"] == "MEDIA (16)"
    assert movie["is_picture"] is False and "picture_asset_status" not in movie
    assert [u["content_type"] for u in slide["unsupported_content"]] == ["media"]
    assert slide["image_area_ratio"] == 0.0


def test_native_deck_audit(rich_doc: dict[str, Any]) -> None:
    audit = rich_doc["native_deck_audit"]
    assert audit["render_required_slide_numbers"] == [2, 3, 4, 7]
    assert audit["render_required_reasons"]["2"] == ["grouped_shapes"]
    assert audit["render_required_reasons"]["7"] == ["media"]
    # An image background needs a render for design judgment (spec), blob or not.
    assert audit["render_required_reasons"]["4"] == ["background_image", "large_picture"]
    assert audit["source_pptx_sha256"] == rich_doc["input_fingerprint"]["digest"]
    assert "rendered_page_inspection" not in audit
    assert api.binding_issues(rich_doc) == []
    # A broken binding is a coded issue at its JSON path (the reader reports its message).
    renumbered = copy.deepcopy(rich_doc)
    renumbered["per_slide_visual"][1]["slide_part_name"] = "ppt/slides/slide9.xml"
    found = [(i.code, i.path) for i in api.binding_issues(renumbered)]
    assert ("binding_slide_part_name", "$.per_slide_visual[1].slide_part_name") in found
    assert any("slide_part_name is not" in m for m in api.classify(renumbered).issues)


def test_merged_table_cells_are_reported_once_at_their_anchor(
    tmp_path: Any, schema_valid: Any
) -> None:
    deck = tmp_path / "merged.pptx"
    deck.write_bytes(sample_decks.merged_table_deck())
    document = extract_path(deck, "merged.pptx", ocr_mode=OCR_DISABLED)
    schema_valid(document)
    slide = document["per_slide_visual"][0]
    channel = next(c for c in slide["text_channels"] if c["channel"] == "table_cell_text")
    assert channel["provenance"]["cells"] == [
        {"row": 1, "column": 1, "row_span": 1, "column_span": 2, "text": "Talks by year"},
        {"row": 1, "column": 3, "row_span": 1, "column_span": 1, "text": "Notes"},
        {"row": 2, "column": 1, "row_span": 1, "column_span": 1, "text": "2025"},
        {"row": 2, "column": 2, "row_span": 1, "column_span": 1, "text": "9"},
        {"row": 2, "column": 3, "row_span": 2, "column_span": 1, "text": "Growing"},
        {"row": 3, "column": 2, "row_span": 1, "column_span": 1, "text": "12"},
    ]
    # A table alone forces low confidence (spec) but is not render-required.
    assert slide["text_extraction_confidence"] == "low"
    assert slide["render_required"] is False


def test_reader_derives_the_group_reason_from_the_shape_summaries(
    rich_doc: dict[str, Any],
) -> None:
    """The light reader re-derives ``grouped_shapes`` from ``shape_type`` (it
    cannot import python-pptx), so its label must be python-pptx's and a
    dropped reason is caught."""
    import copy

    from pptx.enum.shapes import MSO_SHAPE_TYPE
    from rvault_pptx_evidence.render_policy import GROUP_SHAPE_TYPE

    group = MSO_SHAPE_TYPE.GROUP
    assert f"{group.name} ({int(group.value)})" == GROUP_SHAPE_TYPE
    document = copy.deepcopy(rich_doc)
    slide = document["per_slide_visual"][1]
    slide["render_required"], slide["render_required_reasons"] = False, []
    reading = api.classify(document)
    assert reading.status == api.INVALID
    assert any("groups" in issue for issue in reading.issues)
