"""api.native_deck_audit_issues: a held audit read against a fresh extraction and PDF probe.

One real ``extract --rendered-pdf --inspected-pages`` run is the held audit; the
fresh side is the bounded worker's ``recompute_extraction`` and
``probe_rendered_pdf`` of the same bytes (or of replaced ones). Every issue is an
``rvault_contracts.issues.Issue`` with a stable code and the JSON path of the
field that differs.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.issues import Issue
from rvault_pptx_evidence import api
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

AUDIT = '$["structured_data"]["native_deck_audit"]'
INSPECTION = f'{AUDIT}["rendered_page_inspection"]'


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("held")
    deck = folder / "rich.pptx"
    deck.write_bytes(sample_decks.rich_deck())  # 8 slides; 3, 4 and 7 need a render
    pdf = folder / "rich.pdf"
    pdf.write_bytes(sample_decks.pdf_bytes(8))
    result = run_cli("rvault-pptx", "extract", deck, "--rendered-pdf", pdf,
                     "--inspected-pages", "1-8", "--no-ocr")  # fmt: skip
    assert result.returncode == 0, result.stderr
    return {
        "folder": folder,
        "audit": result.json["native_deck_audit"],
        "fresh": api.recompute_extraction(deck),
        "probe": api.probe_rendered_pdf(pdf),
    }


def _issues(held: dict[str, Any], audit: Any, **changed: Any) -> list[Issue]:
    arguments = {"fresh": held["fresh"], "pdf_probe": held["probe"], **changed}
    return api.native_deck_audit_issues(audit, arguments["fresh"],
                                        pdf_probe=arguments["pdf_probe"], path=AUDIT)  # fmt: skip


def _codes(issues: list[Issue]) -> list[tuple[str, str]]:
    return [(i.code, i.path) for i in issues]


def test_the_current_audit_describes_the_deck_and_pdf(held: dict[str, Any]) -> None:
    assert _issues(held, held["audit"]) == []
    assert api.match_native_deck_audit(held["audit"], held["fresh"], pdf_probe=held["probe"]) == []


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("source_pptx_sha256", "0" * 64, api.AUDIT_MISMATCH),
        ("source_pptx_size_bytes", 1, api.AUDIT_MISMATCH),
        ("render_required_slide_numbers", [3, 4], api.AUDIT_MISMATCH),
        ("extraction_receipt_sha256", "f" * 64, api.AUDIT_MISMATCH),
        ("extraction_pipeline_version", "1.4.0", api.AUDIT_OBSOLETE),
        ("extraction_schema_version", 3, api.AUDIT_OBSOLETE),
    ],
)
def test_a_changed_audit_field_is_named_with_its_code(
    held: dict[str, Any], field: str, value: Any, code: str
) -> None:
    audit = copy.deepcopy(held["audit"])
    audit[field] = value
    found = _codes(_issues(held, audit))
    assert (code, f'{AUDIT}["{field}"]') in found
    # the inspection binds the receipt: a forged receipt digest breaks its binding too
    assert all(c in (code, api.INSPECTION_INVALID) for c, _ in found)


def test_another_deck_does_not_inherit_the_audit(held: dict[str, Any], tmp_path: Path) -> None:
    other = tmp_path / "other.pptx"
    other.write_bytes(sample_decks.benchmark_deck(8))  # same slide count, other bytes
    found = _codes(_issues(held, held["audit"], fresh=api.recompute_extraction(other)))
    assert (api.AUDIT_MISMATCH, f'{AUDIT}["source_pptx_sha256"]') in found
    assert (api.AUDIT_MISMATCH, f'{AUDIT}["source_pptx_size_bytes"]') in found


def test_a_same_size_replacement_pdf_is_rendered_pdf_mismatch(
    held: dict[str, Any], tmp_path: Path
) -> None:
    replaced = tmp_path / "replaced.pdf"
    replaced.write_bytes(sample_decks.pdf_bytes(8, height=791))
    probe = api.probe_rendered_pdf(replaced)
    assert probe["size_bytes"] == held["probe"]["size_bytes"]
    issues = _issues(held, held["audit"], pdf_probe=probe)
    assert _codes(issues) == [(api.RENDERED_PDF_MISMATCH, f'{INSPECTION}["rendered_pdf_sha256"]')]
    assert issues[0].message == "rendered_page_inspection does not name the current rendered PDF"


@pytest.mark.parametrize(
    ("field", "value", "codes"),
    [
        # the held digest no longer names the probed PDF, and the binding no longer recomputes
        (
            "rendered_pdf_sha256",
            "0" * 64,
            {
                (api.RENDERED_PDF_MISMATCH, "rendered_pdf_sha256"),
                (api.INSPECTION_INVALID, "binding_sha256"),
            },
        ),
        (
            "complete",
            False,
            {(api.INSPECTION_INVALID, "complete"), (api.INSPECTION_INVALID, "binding_sha256")},
        ),
        (
            "inspected_required_slide_numbers",
            [3],
            {
                (api.INSPECTION_INVALID, "inspected_required_slide_numbers"),
                (api.INSPECTION_INVALID, "binding_sha256"),
            },
        ),
    ],
)
def test_a_changed_inspection_field_is_named_with_its_code(
    held: dict[str, Any], field: str, value: Any, codes: set[tuple[str, str]]
) -> None:
    audit = copy.deepcopy(held["audit"])
    audit["rendered_page_inspection"][field] = value
    found = set(_codes(_issues(held, audit)))
    assert found == {(code, f'{INSPECTION}["{key}"]') for code, key in codes}


def test_without_a_probe_the_pdf_is_not_compared(held: dict[str, Any]) -> None:
    """The inspection's own bindings are still checked; only the PDF identity is not."""
    audit = copy.deepcopy(held["audit"])
    assert _issues(held, audit, pdf_probe=None) == []


def test_a_malformed_audit_is_a_schema_violation_and_nothing_else(held: dict[str, Any]) -> None:
    audit = copy.deepcopy(held["audit"])
    del audit["slide_count"]
    audit["source_pptx_sha256"] = "not hex"
    issues = _issues(held, audit)
    assert {i.code for i in issues} == {"schema_violation"}
    assert {i.path for i in issues} == {AUDIT, f'{AUDIT}["source_pptx_sha256"]'}
    assert _issues(held, ["not", "an", "object"])[0].code == "schema_violation"
