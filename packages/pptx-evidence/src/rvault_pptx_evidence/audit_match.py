"""Recompute and match a native deck audit (light: no python-pptx).

Persistence holds an audit from a worker return and must prove it still
describes the current deck and PDF. It re-extracts the deck in the bounded
worker (:func:`recompute_extraction`, the console module in a subprocess,
so importing this never loads python-pptx) and matches the receipt with
:func:`match_native_deck_audit`: every field of the recomputed audit must be
equal, and a rendered-page inspection must recompute its own binding, its
covered slides and ``complete`` from the fresh audit, and, when the caller
probed the current PDF (:func:`probe_rendered_pdf`), name that PDF's digest,
size and page count, so a same-size replacement cannot inherit the receipt.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from rvault_contracts.strict_json import StrictJSONError, loads_strict

from rvault_pptx_evidence.audit import inspection_binding, native_deck_audit

RECOMPUTE_TIMEOUT_SECONDS = 600.0


class RecomputationRefused(Exception):
    """The owner tool refused the deck or PDF (stable ``code``) or failed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def inspection_issues(inspection: dict[str, Any], audit: dict[str, Any]) -> list[str]:
    """An inspection's own bindings against the (recomputed) audit it sits in."""
    issues = []
    required = audit["render_required_slide_numbers"]
    ranges = inspection["inspected_page_ranges"]
    covered = [n for n in required if any(a <= n <= b for a, b in ranges)]
    if inspection["source_pptx_sha256"] != audit["source_pptx_sha256"]:
        issues.append("rendered_page_inspection names another deck")
    if inspection["rendered_page_count"] != audit["slide_count"]:
        issues.append("rendered_page_inspection page count differs from the slide count")
    if any(b > inspection["rendered_page_count"] or a > b for a, b in ranges):
        issues.append("rendered_page_inspection ranges leave the rendered PDF")
    if inspection["inspected_required_slide_numbers"] != covered:
        issues.append("rendered_page_inspection covered slides are not recomputable")
    if inspection["complete"] != (covered == required):
        issues.append("rendered_page_inspection.complete is not recomputable")
    if inspection["binding_sha256"] != inspection_binding(
        inspection, audit["extraction_receipt_sha256"]
    ):
        issues.append("rendered_page_inspection.binding_sha256 does not recompute")
    return issues


def audit_issues(document: dict[str, Any]) -> list[str]:
    """A document's own audit against the audit recomputed from that document."""
    return match_native_deck_audit(document["native_deck_audit"], document)


def match_native_deck_audit(
    audit: dict[str, Any], fresh: dict[str, Any], *, pdf_probe: dict[str, Any] | None = None
) -> list[str]:
    """Issues (empty: match) between a held audit and a fresh extraction of the deck."""
    expected = native_deck_audit(fresh)
    issues = [
        f"native_deck_audit.{key} does not match the extraction"
        for key, value in expected.items()
        if audit.get(key) != value
    ]
    inspection = audit.get("rendered_page_inspection")
    if inspection is not None:
        issues += inspection_issues(inspection, expected)
        if pdf_probe is not None and (
            pdf_probe["pdf_sha256"],
            pdf_probe["size_bytes"],
            pdf_probe["page_count"],
        ) != (
            inspection["rendered_pdf_sha256"],
            inspection["rendered_pdf_size_bytes"],
            inspection["rendered_page_count"],
        ):
            issues.append("rendered_page_inspection does not name the current rendered PDF")
    return issues


def _owner_tool(arguments: list[str], timeout: float) -> dict[str, Any]:
    try:
        run = subprocess.run(
            [sys.executable, "-m", "rvault_pptx_evidence", *arguments],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise RecomputationRefused("worker_timeout", "the owner tool did not finish") from None
    try:
        document = loads_strict(run.stdout)
    except StrictJSONError as exc:
        raise RecomputationRefused(
            "worker_failed", f"no JSON from the owner tool ({exc.code})"
        ) from None
    if run.returncode != 0 or not isinstance(document, dict):
        error = document.get("error") if isinstance(document, dict) else None
        error = error if isinstance(error, dict) else {}
        raise RecomputationRefused(
            str(error.get("code", "internal_error")), str(error.get("message", "failed"))
        )
    return document


def recompute_extraction(
    deck: Path, *, timeout: float = RECOMPUTE_TIMEOUT_SECONDS
) -> dict[str, Any]:
    """A fresh ``--no-ocr`` extraction of ``deck`` from the bounded worker."""
    return _owner_tool(["extract", str(deck), "--no-ocr"], timeout)


def probe_rendered_pdf(pdf: Path, *, timeout: float = RECOMPUTE_TIMEOUT_SECONDS) -> dict[str, Any]:
    """The pptx-pdf-probe v1 record of the current PDF, from the bounded worker."""
    return _owner_tool(["probe-pdf", str(pdf)], timeout)
