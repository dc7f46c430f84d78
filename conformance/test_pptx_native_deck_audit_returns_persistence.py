"""pptx-native-deck-audit / pptx-rendered-page-inspection -> returns-persistence.

A worker return carries the native_deck_audit the worker got from
``rvault-pptx extract --rendered-pdf --inspected-pages``. Persistence must
recompute it in a bounded worker and match it to the current deck and PDF.
This does exactly that from the consumer side, through
``rvault_pptx_evidence.api`` only: ``recompute_extraction`` (the owner's
worker, ``--no-ocr``), ``probe_rendered_pdf`` and ``match_native_deck_audit``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

COVERS = [
    ("pptx-native-deck-audit", "pptx-evidence", "returns-persistence"),
    ("pptx-rendered-page-inspection", "pptx-evidence", "returns-persistence"),
]


def _worker_audit(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """What the per-talk worker ran (with OCR, from its own directory)."""
    worker_dir = tmp_path / "worker"
    worker_dir.mkdir()
    deck = worker_dir / "Talk.pptx"
    deck.write_bytes(sample_decks.rich_deck())
    pdf = worker_dir / "Talk.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(8))
    result = run_cli(
        "rvault-pptx",
        "extract",
        "Talk.pptx",
        "--rendered-pdf",
        "Talk.pdf",
        "--inspected-pages",
        "1-8",
        cwd=worker_dir,
    )
    assert result.returncode == 0, result.stderr
    audit = result.json["native_deck_audit"]
    assert is_valid("pptx-native-deck-audit", 2, audit)
    assert is_valid("pptx-rendered-page-inspection", 1, audit["rendered_page_inspection"])
    assert audit["rendered_page_inspection"]["complete"] is True
    return deck, pdf, audit


def _canonical_copies(tmp_path: Path, deck: Path, pdf: Path) -> tuple[Path, Path]:
    """Persistence's own canonical vault paths for the same bytes."""
    vault = tmp_path / "vault" / "slides"
    vault.mkdir(parents=True)
    shutil.copyfile(deck, vault / "talk-id.pptx")
    shutil.copyfile(pdf, vault / "talk-id.pdf")
    return vault / "talk-id.pptx", vault / "talk-id.pdf"


def test_persistence_recomputes_and_matches_the_audit(tmp_path: Path) -> None:
    deck, pdf, audit = _worker_audit(tmp_path)
    canonical_deck, canonical_pdf = _canonical_copies(tmp_path, deck, pdf)
    fresh = api.recompute_extraction(canonical_deck)
    assert api.classify(fresh).status == api.CURRENT
    probe = api.probe_rendered_pdf(canonical_pdf)
    assert api.match_native_deck_audit(audit, fresh, pdf_probe=probe) == []


def test_a_replaced_deck_or_pdf_does_not_inherit_the_receipt(tmp_path: Path) -> None:
    deck, pdf, audit = _worker_audit(tmp_path)
    canonical_deck, canonical_pdf = _canonical_copies(tmp_path, deck, pdf)
    canonical_deck.write_bytes(sample_decks.benchmark_deck(8))  # another deck, same slide count
    issues = api.match_native_deck_audit(audit, api.recompute_extraction(canonical_deck))
    assert "native_deck_audit.source_pptx_sha256 does not match the extraction" in issues
    canonical_deck.write_bytes(deck.read_bytes())
    canonical_pdf.write_bytes(sample_decks.pdf_bytes(8, height=791))  # same size, other bytes
    probe = api.probe_rendered_pdf(canonical_pdf)
    assert probe["size_bytes"] == pdf.stat().st_size
    issues = api.match_native_deck_audit(
        audit, api.recompute_extraction(canonical_deck), pdf_probe=probe
    )
    assert issues == ["rendered_page_inspection does not name the current rendered PDF"]


def test_refusals_reach_the_consumer_as_codes(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pptx"
    broken.write_bytes(b"not a zip")
    try:
        api.recompute_extraction(broken)
    except api.RecomputationRefused as refused:
        assert refused.code == "not_a_zip"
    else:
        raise AssertionError("a broken deck must be refused")
