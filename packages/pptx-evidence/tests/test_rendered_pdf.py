"""--rendered-pdf/--inspected-pages and probe-pdf: one stable PDF generation,
equal page counts, exact ranges, required slides covered, bounded probe."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import is_valid
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("rendered")
    deck = folder / "rich.pptx"
    deck.write_bytes(sample_decks.rich_deck())  # 8 slides; 3, 4 and 7 need a render
    pdf = folder / "rich.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(8))
    return deck, pdf


def _extract(deck: Path, pdf: Path, pages: str) -> Any:
    return run_cli(
        "rvault-pptx",
        "extract",
        deck,
        "--no-ocr",
        "--rendered-pdf",
        pdf,
        "--inspected-pages",
        pages,
    )


def test_complete_inspection_binds_the_pdf(rendered: tuple[Path, Path], schema_valid: Any) -> None:
    deck, pdf = rendered
    result = _extract(deck, pdf, "1-4,7")
    assert result.returncode == 0, result.stderr
    document = result.json
    schema_valid(document)
    inspection = document["native_deck_audit"]["rendered_page_inspection"]
    assert is_valid("pptx-rendered-page-inspection", 1, inspection)
    data = pdf.read_bytes()
    assert inspection["rendered_pdf_sha256"] == sha256_bytes(data)
    assert inspection["rendered_pdf_size_bytes"] == len(data)
    assert inspection["rendered_page_count"] == 8
    assert inspection["inspected_page_ranges"] == [[1, 4], [7, 7]]
    assert inspection["inspected_required_slide_numbers"] == [2, 3, 4, 7]
    assert inspection["complete"] is True
    assert inspection["source_pptx_sha256"] == document["input_fingerprint"]["digest"]
    assert api.classify(document).status == api.CURRENT
    assert api.audit_issues(document) == []


def test_partial_inspection_is_not_complete(rendered: tuple[Path, Path]) -> None:
    deck, pdf = rendered
    inspection = _extract(deck, pdf, "3").json["native_deck_audit"]["rendered_page_inspection"]
    assert inspection["inspected_required_slide_numbers"] == [3]
    assert inspection["complete"] is False


def test_tampered_inspection_does_not_match(rendered: tuple[Path, Path]) -> None:
    deck, pdf = rendered
    document = _extract(deck, pdf, "3").json
    for field, value in (
        ("complete", True),
        ("inspected_required_slide_numbers", [3, 4, 7]),
        ("inspected_page_ranges", [[1, 8]]),
    ):
        forged = copy.deepcopy(document)
        forged["native_deck_audit"]["rendered_page_inspection"][field] = value
        assert api.classify(forged).status == api.INVALID, field
    other_pdf = {"pdf_sha256": "0" * 64, "size_bytes": 1, "page_count": 8}
    issues = api.match_native_deck_audit(
        document["native_deck_audit"], document, pdf_probe=other_pdf
    )
    assert issues == ["rendered_page_inspection does not name the current rendered PDF"]


@pytest.mark.parametrize(
    ("pages", "code"),
    [
        ("0", "inspected_pages_invalid"),
        ("4-2", "inspected_pages_invalid"),
        ("1-3,2", "inspected_pages_invalid"),
        ("x", "inspected_pages_invalid"),
        ("9", "inspected_pages_invalid"),
    ],
)
def test_bad_ranges_are_refused(
    rendered: tuple[Path, Path], pages: str, code: str, snapshot_tree: Any
) -> None:
    deck, pdf = rendered
    before = snapshot_tree(deck.parent)
    result = _extract(deck, pdf, pages)
    assert result.returncode == 2
    assert result.json["error"]["code"] == code
    assert snapshot_tree(deck.parent) == before


def test_page_count_must_equal_slide_count(rendered: tuple[Path, Path], tmp_path: Path) -> None:
    deck, _ = rendered
    pdf = tmp_path / "short.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(7))
    result = _extract(deck, pdf, "1")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "rendered_page_count_mismatch"


def test_flags_go_together(rendered: tuple[Path, Path]) -> None:
    deck, pdf = rendered
    result = run_cli("rvault-pptx", "extract", deck, "--rendered-pdf", pdf)
    assert (result.returncode, result.json["error"]["code"]) == (2, "usage_error")


def test_probe_pdf(tmp_path: Path) -> None:
    pdf = tmp_path / "three.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(3))
    result = run_cli("rvault-pptx", "probe-pdf", pdf)
    assert result.returncode == 0, result.stderr
    assert is_valid("pptx-pdf-probe", 1, result.json)
    assert result.json["page_count"] == 3
    assert result.json["pdf_sha256"] == sha256_bytes(pdf.read_bytes())
    assert api.probe_rendered_pdf(pdf) == result.json


def _probe_code(path: Path) -> str:
    result = run_cli("rvault-pptx", "probe-pdf", path)
    assert result.returncode == 2, result.stdout
    return result.json["error"]["code"]


def test_probe_refusals(tmp_path: Path) -> None:
    good = sample_decks.pdf_bytes(3)
    cases = {
        "not.pdf": b"hello",
        "empty.pdf": b"",
        # Objects shifted behind an unchanged xref table: a viewer would repair it.
        "shifted.pdf": good[: good.index(b"\n") + 1]
        + b"%padding-padding\n"
        + good[good.index(b"\n") + 1 :],
        "bad-xref.pdf": good[: good.rfind(b"startxref")] + b"startxref\n12\n%%EOF\n",
    }
    expected = {
        "not.pdf": "pdf_not_a_pdf",
        "empty.pdf": "empty_input",
        "shifted.pdf": "pdf_unreadable",
        "bad-xref.pdf": "pdf_unreadable",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        assert _probe_code(tmp_path / name) == expected[name], name
    link = tmp_path / "link.pdf"
    link.symlink_to(tmp_path / "not.pdf")
    assert _probe_code(link) == "symlink_refused"
    assert _probe_code(tmp_path / "missing.pdf") == "input_missing"


def test_probe_page_ceiling(tmp_path: Path) -> None:
    from rvault_contracts.cli import Refusal
    from rvault_pptx_evidence.limits import PDF_PROBE, with_overrides
    from rvault_pptx_evidence.pdf_probe import probe_pdf

    pdf = tmp_path / "many.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(6))
    with pytest.raises(Refusal) as refused:
        probe_pdf(pdf, limits=with_overrides(PDF_PROBE, max_pdf_pages=5))
    assert refused.value.code == "pdf_too_many_pages"
    with pytest.raises(Refusal) as too_big:
        probe_pdf(pdf, limits=with_overrides(PDF_PROBE, max_pdf_bytes=100))
    assert too_big.value.code == "input_too_large"
