"""A return's native_deck_audit is recomputed from the current deck and PDF, or refused.

The worker's audit comes from the installed ``rvault-pptx extract --rendered-pdf
--inspected-pages`` on the talk's recorded deck and its authored slide PDF (the
vault's ``slides/drive9.pdf``). validate re-extracts the deck and re-probes the
PDF through ``rvault_pptx_evidence.api``; a field that no longer describes them
is a report issue with the owner's stable code, and persist (which re-runs the
validation under the writer lock) refuses the batch without touching the
database: bytes and inode as they were.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from persist_vault import (
    RUN_DATE,
    apply_request,
    persist_applied,
    quote,
    read_talk,
    write_database,
    write_extracted_deck,
    write_youtube_transcript,
)
from returns_testdata import claim_v5, complete_return, database, talk, write_pdf
from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.catalog import load_catalog
from rvault_returns_persistence.database import load_database
from rvault_returns_persistence.persist import persist
from rvault_returns_persistence.validator import validate_batch
from rvault_testkit.plugin import run_cli
from rvault_testkit.pptx_evidence import sample_decks

NAME = "2024-06-01-audited-deck.md"
YID = "audit000001"
SLIDES = 8
AUDIT = '$[0]["structured_data"]["native_deck_audit"]'
INSPECTION = f'{AUDIT}["rendered_page_inspection"]'
PDF = "slides/drive9.pdf"
DETECT = ("narrative-arc", "bookends")


def _vault(tmp_path: Path, deck_bytes: bytes | None = None) -> Path:
    write_youtube_transcript(tmp_path, YID, 120)
    write_pdf(tmp_path / PDF, SLIDES)
    record = talk(
        NAME,
        YID,
        google_drive_id="drive9",
        pptx_path="Conf/talk.pptx",
        slide_source="both",
        _queue_claim=claim_v5([NAME]),
    )
    deck = write_extracted_deck(tmp_path, NAME, SLIDES, deck_bytes)
    return write_database(tmp_path, database([record], [deck]))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """Eight title slides: nothing needs a render."""
    return _vault(tmp_path)


@pytest.fixture
def rich_vault(tmp_path: Path) -> Path:
    """The testkit's rich deck: slides 2 (nested groups), 3, 4 and 7 need a rendered page."""
    return _vault(tmp_path, sample_decks.rich_deck())


def _worker_audit(root: Path, pages: str | None = f"1-{SLIDES}") -> dict[str, Any]:
    """The audit of ``rvault-pptx extract``; with ``pages``, bound to the PDF pages inspected."""
    render = ("--rendered-pdf", PDF, "--inspected-pages", pages) if pages is not None else ()
    result = run_cli("rvault-pptx", "extract", "Conf/talk.pptx", "--no-ocr", *render, cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    audit: dict[str, Any] = result.json["native_deck_audit"]
    assert ("rendered_page_inspection" in audit) is (pages is not None)
    return audit


def _return(db: Path, audit: Any, detect: tuple[str, ...] = DETECT) -> dict[str, Any]:
    ret = complete_return(read_talk(db, NAME), db.parent, deck_slides=SLIDES, detect=detect)
    po = ret["pattern_observations"]
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        for row in po[lane]:
            for citation in row["evidence_citations"]:
                if citation["source"] == "transcript":
                    citation["quote"] = quote(9)  # a line of the generated YouTube transcript
    ret.setdefault("structured_data", {})["native_deck_audit"] = audit
    ranges = {r["source"]: r.get("page_ranges") for r in ret["pattern_observations"]
              ["source_inspection"]}  # fmt: skip
    assert ranges["static_slides"] == ranges["native_deck"] == [[1, SLIDES]]
    return ret


def _errors(db: Path, ret: dict[str, Any]) -> list[tuple[str, str]]:
    report = validate_batch(
        [ret], db=load_database(db), catalog=load_catalog(), vault_root=db.parent,
        catalog_label="default",
    )  # fmt: skip
    return [(e["code"], e["path"]) for r in report["returns"] for e in r["errors"]]


def test_a_current_audit_validates_and_persists(vault: Path) -> None:
    audit = _worker_audit(vault.parent)
    ret = _return(vault, audit)
    assert _errors(vault, ret) == []
    report = persist_applied(vault, [ret])
    assert schema_issues("returns-persistence-report", 2, report) == []
    assert read_talk(vault, NAME)["structured_data"]["native_deck_audit"] == audit


def _forged(audit: dict[str, Any], keys: tuple[str, ...], value: Any) -> dict[str, Any]:
    forged = copy.deepcopy(audit)
    parent = forged
    for key in keys[:-1]:
        parent = parent[key]
    parent[keys[-1]] = value
    return forged


@pytest.mark.parametrize(
    ("keys", "value", "code", "where"),
    [
        (("source_pptx_sha256",), "0" * 64, "native_deck_audit_mismatch",
         f'{AUDIT}["source_pptx_sha256"]'),
        (("slide_count",), SLIDES + 1, "native_deck_audit_mismatch", f'{AUDIT}["slide_count"]'),
        (("extraction_pipeline_version",), "1.4.0", "native_deck_audit_obsolete",
         f'{AUDIT}["extraction_pipeline_version"]'),
        (("rendered_page_inspection", "rendered_pdf_sha256"), "0" * 64, "rendered_pdf_mismatch",
         f'{INSPECTION}["rendered_pdf_sha256"]'),
        (("rendered_page_inspection", "complete"), False, "rendered_page_inspection_invalid",
         f'{INSPECTION}["complete"]'),
        (("source_pptx_sha256",), "not hex", "schema_violation", f'{AUDIT}["source_pptx_sha256"]'),
    ],
)  # fmt: skip
def test_a_forged_audit_is_refused_by_validate_and_persist(
    vault: Path, snapshot_file: Any, keys: tuple[str, ...], value: Any, code: str, where: str
) -> None:
    ret = _return(vault, _forged(_worker_audit(vault.parent), keys, value))
    assert (code, where) in _errors(vault, ret)
    before = snapshot_file(vault)
    with pytest.raises(Refusal) as refused:
        persist(apply_request(vault, [ret]))
    assert refused.value.code == "returns_invalid"
    assert {"code": code, "path": where} in [
        {"code": e["code"], "path": e["path"]} for e in refused.value.context["errors"]
    ]
    assert snapshot_file(vault) == before


def test_a_same_size_replacement_pdf_does_not_inherit_the_receipt(vault: Path) -> None:
    audit = _worker_audit(vault.parent)
    pdf = vault.parent / PDF
    size = pdf.stat().st_size
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(SLIDES):
        writer.add_blank_page(width=320, height=181)  # one digit differs: same size
    with open(pdf, "wb") as handle:
        writer.write(handle)
    assert pdf.stat().st_size == size
    errors = _errors(vault, _return(vault, audit))
    assert errors == [("rendered_pdf_mismatch", f'{INSPECTION}["rendered_pdf_sha256"]')]


def test_a_deck_edited_after_the_audit_is_a_mismatch(vault: Path) -> None:
    audit = _worker_audit(vault.parent)
    from pptx import Presentation

    deck = vault.parent / "Conf" / "talk.pptx"
    presentation = Presentation(str(deck))
    presentation.slides[0].shapes.title.text = "Edited"
    presentation.save(str(deck))
    codes = {c for c, _ in _errors(vault, _return(vault, audit))}
    assert "native_deck_audit_mismatch" in codes


def test_inspected_pages_must_be_the_reported_static_slide_ranges(vault: Path) -> None:
    audit = _worker_audit(vault.parent, pages="1-4")
    assert _errors(vault, _return(vault, audit)) == [
        ("rendered_page_ranges_mismatch", f'{INSPECTION}["inspected_page_ranges"]')
    ]


def test_an_audit_without_a_recorded_deck_cannot_be_recomputed(vault: Path) -> None:
    audit = _worker_audit(vault.parent)
    (vault.parent / "Conf" / "talk.pptx").unlink()
    assert _errors(vault, _return(vault, audit)) == [("native_deck_artifact_unverified", AUDIT)]


def test_an_inspection_needs_the_authored_pdf(vault: Path) -> None:
    audit = _worker_audit(vault.parent)
    ret = _return(vault, audit)
    (vault.parent / PDF).unlink()
    assert ("rendered_pdf_unverified", INSPECTION) in _errors(vault, ret)


def test_the_cli_refuses_with_the_code_and_writes_nothing(
    vault: Path, tmp_path: Path, snapshot_file: Any
) -> None:
    forged = _forged(_worker_audit(vault.parent), ("source_pptx_sha256",), "0" * 64)
    returns = tmp_path / "RETURNS.json"
    returns.write_text(json.dumps([_return(vault, forged)]), encoding="utf-8")
    checked = run_cli("rvault-returns", "validate", returns, "--db", vault)
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert {"code": "native_deck_audit_mismatch", "path": f'{AUDIT}["source_pptx_sha256"]'} in [
        {"code": e["code"], "path": e["path"]} for e in checked.json["returns"][0]["errors"]
    ]
    before = snapshot_file(vault)
    persisted = run_cli("rvault-returns", "persist", vault, returns, "--run-date", RUN_DATE)
    assert persisted.returncode == 2, persisted.stdout + persisted.stderr
    assert persisted.json["error"]["code"] == "returns_invalid"
    assert "native_deck_audit_mismatch" in persisted.json["error"]["message"]
    assert snapshot_file(vault) == before


def _cite_native(ret: dict[str, Any], slides: list[int]) -> str:
    """Point the native_deck slide_sequence citation at ``slides``; its slide_numbers path."""
    po = ret["pattern_observations"]
    for index, row in enumerate(po["patterns_detected"]):
        for number, cit in enumerate(row["evidence_citations"]):
            if cit["source"] == "native_deck" and "slide_numbers" in cit:
                cit["slide_numbers"] = slides
                return (
                    f'$[0]["pattern_observations"]["patterns_detected"][{index}]'
                    f'["evidence_citations"][{number}]["slide_numbers"]'
                )
    raise AssertionError("the return has no native_deck slide citation")


def test_render_required_slides_need_the_rendered_inspection(rich_vault: Path) -> None:
    """Without a rendered inspection, a citation of slide 2, 3 or 4 and a design summary are
    refused; a citation of clean slides stays usable."""
    audit = _worker_audit(rich_vault.parent, pages=None)
    assert audit["render_required_slide_numbers"] == [2, 3, 4, 7]
    clean = _return(rich_vault, audit, (*DETECT, "composite-animation"))
    _cite_native(clean, [5, 6])
    assert _errors(rich_vault, clean) == []
    ret = _return(rich_vault, audit, (*DETECT, "composite-animation"))
    where = _cite_native(ret, [2, 3, 4])
    ret["structured_data"]["slide_design_style"] = "comic panels"
    assert sorted(_errors(rich_vault, ret)) == [
        (
            "authored_visual_fields_render_incomplete",
            '$[0]["structured_data"]["slide_design_style"]',
        ),
        ("native_citation_render_required", where),
    ]
    row = where.split('["evidence_citations"]')[0]
    malformed = copy.deepcopy(ret)
    index = int(row.rsplit("[", 1)[1].rstrip("]"))
    malformed["pattern_observations"]["patterns_detected"][index]["evidence_citations"] += [
        "not a citation",
        {"source": "native_deck", "channel": "slide_sequence", "slide_numbers": [{"n": 3}]},
    ]
    codes = {c for c, _ in _errors(rich_vault, malformed)}  # reported, never raised
    assert {"citation_shape", "slide_numbers_invalid", "native_citation_render_required"} <= codes


def test_a_complete_inspection_covers_citations_and_summaries(rich_vault: Path) -> None:
    audit = _worker_audit(rich_vault.parent)
    assert audit["rendered_page_inspection"]["complete"] is True
    ret = _return(rich_vault, audit, (*DETECT, "composite-animation"))
    _cite_native(ret, [3, 4, 5])
    ret["structured_data"]["slide_design_style"] = "comic panels"
    assert _errors(rich_vault, ret) == []


def test_recomputations_started_together_return_each_deck_or_its_refusal(vault: Path) -> None:
    """The batch validator's parallel re-extractions: each result is the owner's own, and a
    refusal raised in a worker thread reaches the check as RecomputationRefused."""
    from rvault_pptx_evidence import api as pptx
    from rvault_returns_persistence.checks.deck_audit import Recomputations

    deck = vault.parent / "Conf" / "talk.pptx"
    broken = vault.parent / "broken.pptx"
    broken.write_bytes(b"not a zip")
    runs = Recomputations(2)
    try:
        runs.start(deck)
        runs.start(broken)
        assert (
            runs.result(deck)["input_fingerprint"]
            == pptx.recompute_extraction(deck)["input_fingerprint"]
        )
        with pytest.raises(pptx.RecomputationRefused) as refused:
            runs.result(broken)
        assert refused.value.code == "not_a_zip"
        assert runs.result(deck)["slide_count"] == SLIDES  # not foreseen again: runs in place
    finally:
        runs.close()
