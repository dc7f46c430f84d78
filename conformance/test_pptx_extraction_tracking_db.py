"""pptx-extraction v4 -> tracking-db (``pptx_catalog``).

The catalog needs the deck identity (fingerprint), slide count and template
layouts, and must refuse stale generations instead of guessing. This runs the
real console script on a generated deck and reads the output back through
``rvault_pptx_evidence.api`` and the v4 schema.
"""

from __future__ import annotations

from pathlib import Path

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api, sample_decks
from rvault_testkit.plugin import run_cli

COVERS = [("pptx-extraction", "pptx-evidence", "tracking-db")]


def test_catalog_fields_read_back(tmp_path: Path) -> None:
    source_root = tmp_path / "decks"
    deck = source_root / "Conf" / "2026" / "Talk.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(sample_decks.rich_deck())
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root", source_root)
    assert result.returncode == 0, result.stderr
    document = result.json
    assert is_valid("pptx-extraction", 4, document)
    reading = api.classify(document)
    assert reading.status == api.CURRENT
    assert document["pptx_path"] == "Conf/2026/Talk.pptx"
    assert document["input_fingerprint"]["digest"] == sha256_bytes(deck.read_bytes())
    assert document["slide_count"] == 8
    assert [layout["name"] for layout in document["template_layouts"]][:2] == [
        "Title Slide",
        "Title and Content",
    ]


def test_stale_generations_are_not_catalogued() -> None:
    assert api.classify({"slide_count": 3}).status == api.TIMING_UNKNOWN
    assert api.classify({"schema_version": 3}).status == api.NEEDS_REEXTRACTION
    assert api.classify({"schema_version": 99}).status == api.UNUSABLE_FUTURE
