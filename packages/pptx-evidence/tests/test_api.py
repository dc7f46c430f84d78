"""The light reader classifies every schema generation and checks bindings."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rvault_pptx_evidence import api
from rvault_pptx_evidence.extract import extract_path
from rvault_pptx_evidence.ocr_channels import OCR_DISABLED
from rvault_testkit.pptx_evidence import sample_decks


def test_api_and_package_import_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "import rvault_pptx_evidence, rvault_pptx_evidence.api\n"
        "print(sorted(m for m in ('pptx', 'lxml', 'PIL', 'cv2') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("document", "status", "version", "timing_known"),
    [
        ({"slide_count": 3, "per_slide_visual": []}, api.TIMING_UNKNOWN, 0, False),
        ({"schema_version": 0}, api.TIMING_UNKNOWN, 0, False),
        ({"schema_version": 1, "input_fingerprint": {}}, api.TIMING_UNKNOWN, 1, False),
        ({"schema_version": 2, "native_timing_summary": {}}, api.NEEDS_REEXTRACTION, 2, True),
        ({"schema_version": 3}, api.NEEDS_REEXTRACTION, 3, True),
        ({"schema_version": 6}, api.UNUSABLE_FUTURE, 6, False),
        ({"schema_version": 4}, api.INVALID, 4, False),  # v4 is still schema-checked
        ({"schema_version": "4"}, api.INVALID, None, False),
        ({"schema_version": True}, api.INVALID, None, False),
    ],
)
def test_generations(
    document: dict[str, Any], status: str, version: int | None, timing_known: bool
) -> None:
    reading = api.classify(document)
    assert (reading.status, reading.schema_version, reading.timing_known) == (
        status,
        version,
        timing_known,
    )
    assert reading.usable_for_current_analysis is False
    assert reading.issues


def test_strict_decoding_refuses_duplicate_keys() -> None:
    reading = api.read_extraction(b'{"schema_version": 4, "schema_version": 4}')
    assert reading.status == api.INVALID
    assert reading.issues[0].startswith("duplicate_key")


def test_schema_violation_is_invalid(rich_doc: dict[str, Any]) -> None:
    document = copy.deepcopy(rich_doc)
    title = document["per_slide_visual"][0]["shapes_summary"][0]
    title["picture_asset_status"] = "available"  # a text frame claiming a picture binding
    reading = api.classify(document)
    assert reading.status == api.INVALID
    assert any("shapes_summary" in issue for issue in reading.issues)


def test_wrong_uri_binding_is_invalid(rich_doc: dict[str, Any]) -> None:
    document = copy.deepcopy(rich_doc)
    slide = document["per_slide_visual"][2]
    diagram = next(s for s in slide["shapes_summary"] if s["graphic_frame_type"] == "smartart")
    diagram["graphic_data_uri"] = "http://schemas.openxmlformats.org/drawingml/2006/chart"
    assert api.classify(document).status == api.INVALID


@pytest.mark.parametrize(
    "tamper",
    ["swap_part_names", "timing_part", "audit_digest", "reasons", "slide_count"],
)
def test_binding_tampering_is_invalid(rich_doc: dict[str, Any], tamper: str) -> None:
    document = copy.deepcopy(rich_doc)
    slides = document["per_slide_visual"]
    if tamper == "swap_part_names":
        slides[0]["slide_part_name"], slides[1]["slide_part_name"] = (
            slides[1]["slide_part_name"],
            slides[0]["slide_part_name"],
        )
    elif tamper == "timing_part":
        slides[0]["native_timing"]["provenance"]["part_name"] = "ppt/slides/slide2.xml"
    elif tamper == "audit_digest":
        document["native_deck_audit"]["extraction_receipt_sha256"] = "f" * 64
    elif tamper == "reasons":
        slides[2]["render_required_reasons"] = ["chart"]
    else:
        document["slide_count"] = 9
    reading = api.classify(document)
    assert reading.status == api.INVALID
    assert reading.issues


def _as_v4(document: dict[str, Any]) -> dict[str, Any]:
    """The same extraction in the previous generation's shape (no grouped_shapes
    reason, no provenance.cells, audit v1 naming extraction v4)."""
    old = copy.deepcopy(document)
    old["schema_version"] = 4
    old["native_deck_audit"].update(schema_version=1, extraction_schema_version=4)
    for slide in old["per_slide_visual"]:
        for channel in slide["text_channels"]:
            channel.get("provenance", {}).pop("cells", None)
        reasons = [r for r in slide["render_required_reasons"] if r != "grouped_shapes"]
        slide["render_required_reasons"], slide["render_required"] = reasons, bool(reasons)
    reasons_by_slide = {
        str(s["slide_number"]): s["render_required_reasons"]
        for s in old["per_slide_visual"]
        if s["render_required_reasons"]
    }
    old["native_deck_audit"]["render_required_reasons"] = reasons_by_slide
    old["native_deck_audit"]["render_required_slide_numbers"] = [int(n) for n in reasons_by_slide]
    return old


def test_v4_stays_readable_but_needs_reextraction(rich_doc: dict[str, Any]) -> None:
    reading = api.classify(_as_v4(rich_doc))
    assert (reading.status, reading.schema_version, reading.timing_known) == (
        api.NEEDS_REEXTRACTION,
        4,
        True,
    )
    assert "grouped_shapes" in reading.issues[0]
    assert reading.document is not None and reading.usable_for_current_analysis is False
    # The v5 document itself is not a valid v4 one, nor the reverse.
    assert api.classify({**_as_v4(rich_doc), "schema_version": 5}).status == api.INVALID


def test_reading_to_dict(rich_doc: dict[str, Any], picture_deck: Path, tmp_path: Path) -> None:
    """The summary a consumer logs or reports: no document, issues as a list, and the
    derived ``usable_for_current_analysis`` (false when degraded or not current)."""
    current = api.classify(rich_doc).to_dict()
    assert current == {
        "status": api.CURRENT,
        "schema_version": 5,
        "timing_known": True,
        "degraded": False,
        "usable_for_current_analysis": True,
        "issues": [],
    }
    package = picture_deck.read_bytes()
    damaged = tmp_path / "damaged.pptx"
    damaged.write_bytes(
        sample_decks.corrupt_member_crc(package, sample_decks.first_media_member(package))
    )
    degraded = api.classify(extract_path(damaged, "d.pptx", ocr_mode=OCR_DISABLED)).to_dict()
    assert (degraded["status"], degraded["degraded"]) == (api.CURRENT, True)
    assert degraded["usable_for_current_analysis"] is False
    legacy = api.classify({"schema_version": 1}).to_dict()
    assert legacy["status"] == api.TIMING_UNKNOWN and legacy["timing_known"] is False
    assert legacy["usable_for_current_analysis"] is False
    assert isinstance(legacy["issues"], list) and len(legacy["issues"]) == 1
    for summary in (current, degraded, legacy):
        assert "document" not in summary
        assert json.loads(json.dumps(summary)) == summary
