"""``api.deck_identity_facts``: what a real extraction says about the deck's delivery."""

from __future__ import annotations

from pathlib import Path

from rvault_pptx_evidence.api import deck_identity_facts
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence.identity_decks import delivery_deck


def test_facts_come_from_the_title_slide_footers_and_path(tmp_path: Path) -> None:
    deck = tmp_path / "decks" / "Devoxx" / "2023" / "Cost Myths.pptx"
    deck.parent.mkdir(parents=True)
    deck.write_bytes(delivery_deck("Kubernetes Cost Myths", "Jane Doe", "Devoxx 2023 #devoxx"))
    result = run_cli("rvault-pptx", "extract", deck, "--no-ocr", "--source-root",
                     tmp_path / "decks")  # fmt: skip
    assert result.returncode == 0, result.stderr
    facts = deck_identity_facts(result.json)
    assert facts["pptx_path"] == "Devoxx/2023/Cost Myths.pptx"
    assert facts["folders"] == ["Devoxx", "2023"] and facts["file_stem"] == "Cost Myths"
    assert facts["title_text"].startswith("Kubernetes Cost Myths\nJane Doe")
    assert "Why it matters" not in facts["title_text"]  # only the first slide
    assert facts["footers"] == ["Devoxx 2023 #devoxx"]
    assert facts["hashtags"] == ["devoxx"]


def test_a_deck_at_the_root_has_no_folders() -> None:
    facts = deck_identity_facts({"pptx_path": "Talk.pptx", "per_slide_visual": []})
    assert facts["folders"] == [] and facts["title_text"] == "" and facts["footers"] == []
