"""Recompute and match a native deck audit (light: no python-pptx).

Persistence holds an audit from a worker return and must prove it still
describes the current deck and PDF. It re-extracts the deck in the bounded
worker (:func:`recompute_extraction`, the console module in a subprocess,
so importing this never loads python-pptx) and matches the receipt with
:func:`native_deck_audit_issues` (coded ``rvault_contracts.issues.Issue``
values; :func:`match_native_deck_audit` is its messages): every field of the
recomputed audit must be equal, and a rendered-page inspection must recompute its own binding, its
covered slides and ``complete`` from the fresh audit, and, when the caller
probed the current PDF (:func:`probe_rendered_pdf`), name that PDF's digest,
size and page count, so a same-size replacement cannot inherit the receipt.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rvault_contracts.errors import Refusal
from rvault_contracts.issues import Issue
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import StrictJSONError, json_path, loads_strict

from rvault_pptx_evidence.audit import inspection_binding, native_deck_audit
from rvault_pptx_evidence.versions import NATIVE_DECK_AUDIT_SCHEMA_VERSION

AUDIT_ARTIFACT_ID = "pptx-native-deck-audit"

RECOMPUTE_TIMEOUT_SECONDS = 600.0


class RecomputationRefused(Refusal):
    """The owner tool refused the deck or PDF (stable ``code``) or failed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


# Stable codes of a held audit that does not describe the current deck or PDF.
AUDIT_MISMATCH = "native_deck_audit_mismatch"
AUDIT_OBSOLETE = "native_deck_audit_obsolete"
INSPECTION_INVALID = "rendered_page_inspection_invalid"
RENDERED_PDF_MISMATCH = "rendered_pdf_mismatch"

# Audit fields naming the extractor generation rather than the deck: a difference
# means the receipt came from another extractor (re-extract), not another deck.
GENERATION_FIELDS = ("schema_version", "extraction_schema_version", "extraction_pipeline_version")
# The probe record's fields, each against the inspection field that must equal it.
PDF_FIELDS = (
    ("pdf_sha256", "rendered_pdf_sha256"),
    ("size_bytes", "rendered_pdf_size_bytes"),
    ("page_count", "rendered_page_count"),
)


def _inspection_findings(
    inspection: dict[str, Any], audit: dict[str, Any], path: str
) -> list[Issue]:
    """An inspection's own bindings against the (recomputed) audit it sits in."""
    required = audit["render_required_slide_numbers"]
    ranges = inspection["inspected_page_ranges"]
    covered = [n for n in required if any(a <= n <= b for a, b in ranges)]
    checks = (
        (
            inspection["source_pptx_sha256"] != audit["source_pptx_sha256"],
            "source_pptx_sha256",
            "rendered_page_inspection names another deck",
        ),
        (
            inspection["rendered_page_count"] != audit["slide_count"],
            "rendered_page_count",
            "rendered_page_inspection page count differs from the slide count",
        ),
        (
            any(b > inspection["rendered_page_count"] or a > b for a, b in ranges),
            "inspected_page_ranges",
            "rendered_page_inspection ranges leave the rendered PDF",
        ),
        (
            inspection["inspected_required_slide_numbers"] != covered,
            "inspected_required_slide_numbers",
            "rendered_page_inspection covered slides are not recomputable",
        ),
        (
            inspection["complete"] != (covered == required),
            "complete",
            "rendered_page_inspection.complete is not recomputable",
        ),
        (
            inspection["binding_sha256"]
            != inspection_binding(inspection, audit["extraction_receipt_sha256"]),
            "binding_sha256",
            "rendered_page_inspection.binding_sha256 does not recompute",
        ),
    )
    return [
        Issue(INSPECTION_INVALID, json_path(path, key), message)
        for failed, key, message in checks
        if failed
    ]


def native_deck_audit_issues(
    audit: Any,
    fresh: dict[str, Any],
    *,
    pdf_probe: dict[str, Any] | None = None,
    path: str = "$",
) -> list[Issue]:
    """Why a held audit does not describe a fresh extraction of the deck (empty: it does).

    The reader a consumer holding an audit uses (returns-persistence reads the
    one a worker return carries): ``fresh`` is :func:`recompute_extraction` of
    the current deck, ``pdf_probe`` :func:`probe_rendered_pdf` of the current
    rendered PDF, ``path`` the JSON path of ``audit`` in the caller's document,
    so every issue names the field that differs. Codes: ``schema_violation``
    (not a current ``pptx-native-deck-audit`` record; nothing else is compared),
    ``native_deck_audit_obsolete`` (another audit or extractor schema, or
    another pipeline, than the fresh extraction's: checked first, since such a
    record is not held to this generation's schema),
    ``native_deck_audit_mismatch`` (another deck, or a receipt that is not this
    deck's extraction), ``rendered_page_inspection_invalid`` (its covered
    slides, ``complete`` or ``binding_sha256`` do not recompute from the fresh
    audit) and ``rendered_pdf_mismatch`` (the inspection names another PDF
    than the probed one: digest, size or page count).
    """
    expected = native_deck_audit(fresh)
    if isinstance(audit, dict):
        obsolete = [
            Issue(
                AUDIT_OBSOLETE,
                json_path(path, key),
                f"native_deck_audit.{key} is {audit[key]!r}, not the current {expected[key]!r};"
                " re-extract the deck",
            )
            for key in GENERATION_FIELDS
            if key in audit and audit[key] != expected[key]
        ]
        if obsolete:  # another generation's record: this generation's schema does not apply
            return obsolete
    problems = schema_issues(AUDIT_ARTIFACT_ID, NATIVE_DECK_AUDIT_SCHEMA_VERSION, audit)
    if problems:
        return [
            Issue(i.code, path + i.path[1:], i.message, validator=i.validator) for i in problems
        ]
    issues = [
        Issue(
            AUDIT_MISMATCH,
            json_path(path, key),
            f"native_deck_audit.{key} does not match the extraction",
        )
        for key, value in expected.items()
        if audit.get(key) != value
    ]
    inspection = audit.get("rendered_page_inspection")
    if inspection is not None:
        where = json_path(path, "rendered_page_inspection")
        issues += _inspection_findings(inspection, expected, where)
        differing = [
            held for probed, held in PDF_FIELDS if pdf_probe is not None
            and pdf_probe[probed] != inspection[held]
        ]  # fmt: skip
        if differing:
            issues.append(
                Issue(
                    RENDERED_PDF_MISMATCH,
                    json_path(where, differing[0]),
                    "rendered_page_inspection does not name the current rendered PDF",
                )
            )
    return issues


def inspection_issues(inspection: dict[str, Any], audit: dict[str, Any]) -> list[Issue]:
    """An inspection's own bindings against the (recomputed) audit it sits in."""
    return _inspection_findings(inspection, audit, "$")


def audit_issues(document: dict[str, Any]) -> list[Issue]:
    """A document's own audit against the audit recomputed from that document."""
    return native_deck_audit_issues(
        document["native_deck_audit"], document, path="$.native_deck_audit"
    )


def match_native_deck_audit(
    audit: dict[str, Any], fresh: dict[str, Any], *, pdf_probe: dict[str, Any] | None = None
) -> list[str]:
    """The messages of :func:`native_deck_audit_issues` (empty: match).

    For a reader that reports free text; a consumer that refuses on the
    result reads the coded issues instead.
    """
    return [i.message for i in native_deck_audit_issues(audit, fresh, pdf_probe=pdf_probe)]


def _owner_tool(arguments: list[str], timeout: float) -> dict[str, Any]:
    import subprocess  # only a recomputation spawns the owner tool; a reader of receipts does not

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
