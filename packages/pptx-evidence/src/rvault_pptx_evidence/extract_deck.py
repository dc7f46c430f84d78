"""``rvault-pptx extract DECK``: one deck's request in, its document (or write report) out.

The cheap refusals come first, before a worker is started (a long
extraction must not end in a refusal it could have had at once): the page
ranges, the deck and rendered PDF paths (the same single ``lstat`` check
the worker's reader makes before it re-checks with ``O_NOFOLLOW``), an
``--out`` that names the deck or lies in no directory. Then the supervised
worker extracts, and with ``--out`` the document is installed through the
writer protocol.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts import cli as contract_cli
from rvault_contracts.canonical import artifact_bytes

from rvault_pptx_evidence.audit import parse_page_ranges
from rvault_pptx_evidence.source import check_path
from rvault_pptx_evidence.worker import run_isolated

OUTPUT_IS_INPUT = "output_is_input"
OUTPUT_DIRECTORY_MISSING = "output_directory_missing"


@dataclass(frozen=True)
class ExtractRequest:
    deck: Path
    pptx_path: str
    """The ``pptx_path`` the document records (relative, ``/``-separated)."""
    ocr_mode: str
    out: Path | None = None
    rendered_pdf: Path | None = None
    inspected_pages: str | None = None


def _same_file(deck: Path, out: Path) -> bool:
    if deck.absolute() == out.absolute():
        return True
    try:
        return out.exists() and deck.samefile(out)
    except OSError:
        return False


def _is_directory(path: Path) -> bool:
    """``Path.is_dir`` raises on a directory the process may not search; that is
    a missing output directory for us, not an internal error."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except OSError:
        return False


def _precheck(request: ExtractRequest) -> None:
    """Every refusal that needs no worker, in the order a person fixes them."""
    if request.inspected_pages is not None:
        parse_page_ranges(request.inspected_pages)
    check_path(request.deck)
    if request.rendered_pdf is not None:
        check_path(request.rendered_pdf, "PDF")
    out = request.out
    if out is not None and _same_file(request.deck, out):
        raise contract_cli.Refusal(
            OUTPUT_IS_INPUT, "--out names the source deck; the deck is never rewritten", str(out)
        )
    if out is not None and not _is_directory(out.parent):
        # Refused before the worker runs: a long extraction would otherwise end in io_error.
        raise contract_cli.Refusal(
            OUTPUT_DIRECTORY_MISSING,
            "--out must name a file in an existing directory",
            str(out.parent),
        )


def _report_ocr(document: dict[str, Any]) -> None:
    """One stderr line: how many assets were OCRed, or why none was."""
    channels = [
        c
        for slide in document["per_slide_visual"]
        for c in slide["text_channels"]
        if c["channel"] in ("picture_ocr", "background_image_ocr")
    ]
    receipts = [r for c in channels for r in c["ocr_receipts"]]
    if any(c["reason"] == "ocr_engine_unavailable" for c in channels):
        contract_cli.progress(
            "rvault-pptx: tesseract is not installed (apt-get install tesseract-ocr);"
            " OCR receipts say ocr_engine_unavailable"
        )
    elif any(r["attempted"] for r in receipts):
        trusted = sum(1 for r in receipts if r["trustworthy_text"])
        contract_cli.progress(
            f"rvault-pptx: OCR receipts {len(receipts)}, trustworthy {trusted},"
            f" failed {sum(1 for r in receipts if r['result_status'] == 'failed')}"
        )


def _install(out: Path, document: dict[str, Any]) -> dict[str, Any]:
    """The write report of installing ``document`` at ``out``."""
    # Imported here: only --out needs the writer, and the 1-slide path is latency-bound.
    from rvault_contracts.writer import install, read_snapshot, writer_lock

    with writer_lock(out) as lock:
        snapshot = read_snapshot(out)
        report = install(out, artifact_bytes(document), expected=snapshot, lock=lock)
    return {
        "ok": True,
        "out": str(out),
        "schema_version": document["schema_version"],
        "pipeline_version": document["pipeline_version"],
        "input_fingerprint": document["input_fingerprint"],
        "slide_count": document["slide_count"],
        "write_report": report.to_dict(),
    }


def extract_deck(request: ExtractRequest) -> dict[str, Any]:
    """The schema-v5 extraction document, or with ``out`` the report of installing it."""
    _precheck(request)
    run = run_isolated(
        request.deck,
        request.pptx_path,
        ocr_mode=request.ocr_mode,
        rendered_pdf=request.rendered_pdf,
        inspected_pages=request.inspected_pages,
    )
    contract_cli.progress(
        f"rvault-pptx: {run.document['slide_count']} slides;"
        f" worker peak_rss_kib={run.worker_peak_rss_kib} "
        f"supervisor peak_rss_kib={run.supervisor_peak_rss_kib}"
    )
    _report_ocr(run.document)
    return run.document if request.out is None else _install(request.out, run.document)
