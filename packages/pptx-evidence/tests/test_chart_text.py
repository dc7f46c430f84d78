"""Chart labels are read from the chart part into their own channel.

A chart-only deck used to give a worker nothing to read: the chart was
flagged render-required and its words (title, axis titles, series names,
categories) were nowhere. They are now ``chart_label_text`` channels, one per
role, while the chart stays unsupported and render-required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rvault_pptx_evidence import api
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks


@pytest.fixture(scope="module")
def chart_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    deck = tmp_path_factory.mktemp("charts") / "charts.pptx"
    deck.write_bytes(sample_decks.chart_deck())
    return deck


@pytest.fixture(scope="module")
def chart_doc(chart_deck: Path) -> dict[str, Any]:
    return extract_path(chart_deck, "charts.pptx", ocr_mode=OCR_DISABLED)


def _labels(slide: dict[str, Any]) -> dict[str, str]:
    return {
        c["provenance"]["source"]: c["text"]
        for c in slide["text_channels"]
        if c["channel"] == "chart_label_text"
    }


def test_column_chart_title_axes_series_and_categories(
    chart_doc: dict[str, Any], schema_valid: Any
) -> None:
    schema_valid(chart_doc)
    slide = chart_doc["per_slide_visual"][0]
    assert _labels(slide) == {
        "pptx_chart_title": "Conference growth",
        "pptx_chart_axis_title": "Year\nNumber of talks",
        "pptx_chart_series_name": "Talks given\nTalks accepted",
        "pptx_chart_category_label": "2024\n2025\n2026",
    }
    for channel in slide["text_channels"]:
        if channel["channel"] == "chart_label_text":
            assert channel["confidence"] == "medium"
            assert channel["status"] == "extracted"
            assert channel["provenance"]["shape_path"] == ["Chart 1"]
    assert slide["has_extracted_text"] is True
    # Still a chart the worker must look at: values and the picture are not read.
    assert slide["render_required_reasons"] == ["chart"]
    assert [c["status"] for c in slide["text_channels"] if c["channel"] == "chart_text"] == [
        "requires_render"
    ]
    # text_content_preview stays the native frame + table aggregate (the spec's
    # backward-compatible field); chart labels live only in their channel.
    assert slide["text_content_preview"] == ""


def test_pie_chart_in_a_group_has_no_axis_or_title(chart_doc: dict[str, Any]) -> None:
    slide = chart_doc["per_slide_visual"][1]
    assert _labels(slide) == {
        "pptx_chart_series_name": "Time share",
        "pptx_chart_category_label": "Demo\nSlides",
    }
    paths = {
        tuple(c["provenance"]["shape_path"])
        for c in slide["text_channels"]
        if c["channel"] == "chart_label_text"
    }
    assert paths == {("Group 1", "Chart 2")}


def test_chart_without_its_part_keeps_only_the_render_marker(chart_doc: dict[str, Any]) -> None:
    slide = chart_doc["per_slide_visual"][2]
    assert _labels(slide) == {}
    assert slide["has_extracted_text"] is False
    assert slide["render_required_reasons"] == ["chart"]


def test_reading_the_chart_authors_nothing(chart_deck: Path, chart_doc: dict[str, Any]) -> None:
    """python-pptx's ``chart_title`` / ``axis_title`` add an empty title when
    there is none; the reader asks ``has_title`` first, so an untitled chart
    stays untitled (its XML is byte-identical after reading)."""
    from lxml import etree
    from pptx import Presentation
    from rvault_pptx_evidence.chart_text import chart_roles

    prs = Presentation(str(chart_deck))
    chart = prs.slides[1].shapes[0].shapes[0].chart  # the untitled pie in its group
    before = etree.tostring(chart._chartSpace)
    roles = dict(chart_roles(chart))
    assert etree.tostring(chart._chartSpace) == before
    assert "pptx_chart_title" not in roles and "pptx_chart_axis_title" not in roles
    assert roles["pptx_chart_series_name"] == ["Time share"]
    assert api.classify(chart_doc).status == api.CURRENT


def test_chart_labels_from_the_console_script(chart_deck: Path) -> None:
    result = run_cli("rvault-pptx", "extract", chart_deck, "--no-ocr")
    assert result.returncode == 0, result.stderr
    texts = [
        c["text"]
        for c in result.json["per_slide_visual"][0]["text_channels"]
        if c["channel"] == "chart_label_text"
    ]
    assert "Conference growth" in texts
