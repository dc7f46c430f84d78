"""The light reader classifies every schema generation and checks bindings."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from rvault_pptx_evidence import api


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
        ({"schema_version": 5}, api.UNUSABLE_FUTURE, 5, False),
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
