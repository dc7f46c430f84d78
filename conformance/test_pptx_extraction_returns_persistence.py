"""pptx-extraction v4 -> returns-persistence (native-deck evidence).

Runs the real ``rvault-pptx extract`` console script on a deck generated
here, then reads the written file back the way returns-persistence must:
strict decode, schema v4, and ``rvault_pptx_evidence.api`` for the version
rules and cross-record bindings (render-required slides, degraded archives).
"""

from __future__ import annotations

from pathlib import Path

from rvault_contracts.schemas import is_valid
from rvault_contracts.strict_json import loads_strict
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

COVERS = [("pptx-extraction", "pptx-evidence", "returns-persistence")]


def _extract(deck: Path, out: Path) -> api.ExtractionReading:
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.json["write_report"]["durability_state"] == "durable"
    data = out.read_bytes()
    assert is_valid("pptx-extraction", 5, loads_strict(data))
    return api.read_extraction(data)


def test_native_deck_audit_names_render_required_slides(tmp_path: Path) -> None:
    deck = tmp_path / "rich.pptx"
    deck.write_bytes(sample_decks.rich_deck())
    reading = _extract(deck, tmp_path / "rich.extraction.json")
    assert reading.status == api.CURRENT and reading.usable_for_current_analysis
    document = reading.document
    assert document is not None
    audit = document["native_deck_audit"]
    assert audit["render_required_slide_numbers"] == [2, 3, 4, 7]
    assert audit["extraction_schema_version"] == 5
    low = [
        s["slide_number"]
        for s in document["per_slide_visual"]
        if s["text_extraction_confidence"] == "low"
    ]
    assert low == [2, 3, 4, 7]
    assert all(
        s["native_timing"]["provenance"]["observed_playback"] is False
        for s in document["per_slide_visual"]
    )


def test_recovered_archive_is_degraded_not_scoreable(tmp_path: Path) -> None:
    raw = sample_decks.picture_deck()
    member = sample_decks.first_media_member(raw)
    deck = tmp_path / "damaged.pptx"
    deck.write_bytes(sample_decks.corrupt_member_crc(raw, member))
    reading = _extract(deck, tmp_path / "damaged.extraction.json")
    assert reading.status == api.CURRENT
    assert reading.degraded is True and reading.usable_for_current_analysis is False
    assert reading.document is not None
    assert reading.document["archive_recovery"][0]["part_name"] == member
