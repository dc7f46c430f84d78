"""The native deck audit record, shared by the extractor and the public reader.

Both must derive it identically: the extractor writes it, and
``rvault_pptx_evidence.api`` recomputes it to prove an extraction's audit is
bound to that exact document. Kept tiny (no schema or OOXML imports) so the
resource-limited extraction worker can import it.
"""

from __future__ import annotations

import re
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_contracts.cli import Refusal

from rvault_pptx_evidence.versions import (
    NATIVE_DECK_AUDIT_SCHEMA_VERSION,
    RENDERED_PAGE_INSPECTION_SCHEMA_VERSION,
)

# Per-slide fields whose values depend on the OCR engine (its presence,
# version and mode) rather than on the deck bytes.
OCR_DEPENDENT_SLIDE_FIELDS = ("ocr_text", "text_extraction_method", "has_extracted_text")
OCR_CHANNELS = ("picture_ocr", "background_image_ocr")


def receipt_projection(document: dict[str, Any]) -> dict[str, Any]:
    """What ``extraction_receipt_sha256`` binds: everything the deck bytes determine.

    Left out: the audit itself; ``pptx_path`` (where the command ran from or
    which ``--source-root`` it was given must not change the receipt: a
    persistence worker re-extracting the same bytes elsewhere has to match);
    and the OCR channels plus the per-slide fields derived from them (engine
    presence, version and ``--no-ocr`` are not properties of the deck; OCR is
    bound by its own per-asset receipts instead).
    """
    slides = []
    for slide in document["per_slide_visual"]:
        kept = {k: v for k, v in slide.items() if k not in OCR_DEPENDENT_SLIDE_FIELDS}
        kept["text_channels"] = [
            c for c in slide["text_channels"] if c.get("channel") not in OCR_CHANNELS
        ]
        slides.append(kept)
    projection = {
        key: value
        for key, value in document.items()
        if key not in ("native_deck_audit", "pptx_path", "per_slide_visual")
    }
    projection["per_slide_visual"] = slides
    return projection


def native_deck_audit(document: dict[str, Any]) -> dict[str, Any]:
    """The audit record bound to the exact deck and to this extraction's payload.

    ``extraction_receipt_sha256`` is the canonical payload SHA-256 of
    :func:`receipt_projection`. A rendered-page inspection, when the document
    carries one, is added by ``rendered_inspection`` and is not recomputed here.
    """
    receipt = receipt_projection(document)
    required = [s for s in document["per_slide_visual"] if s["render_required"]]
    return {
        "schema_version": NATIVE_DECK_AUDIT_SCHEMA_VERSION,
        "extraction_schema_version": document["schema_version"],
        "extraction_pipeline_version": document["pipeline_version"],
        "source_pptx_sha256": document["input_fingerprint"]["digest"],
        "source_pptx_size_bytes": document["input_fingerprint"]["size_bytes"],
        "slide_count": document["slide_count"],
        "render_required_slide_numbers": [s["slide_number"] for s in required],
        "render_required_reasons": {
            str(s["slide_number"]): s["render_required_reasons"] for s in required
        },
        "extraction_receipt_sha256": payload_sha256(receipt),
    }


INSPECTED_PAGES_INVALID = "inspected_pages_invalid"
_RANGE = re.compile(r"([1-9][0-9]{0,6})(?:-([1-9][0-9]{0,6}))?")


def parse_page_ranges(text: str) -> list[list[int]]:
    """``PAGE|START-END[,...]`` as ascending, non-overlapping ``[start, end]`` pairs.

    Ranges are kept exactly as inspected (not merged), so the receipt says
    what was looked at; unordered or overlapping input is refused instead of
    being reinterpreted.
    """
    ranges: list[list[int]] = []
    for piece in text.split(","):
        match = _RANGE.fullmatch(piece.strip())
        if match is None:
            raise Refusal(
                INSPECTED_PAGES_INVALID,
                f"--inspected-pages: {piece.strip()!r} is not PAGE or START-END (pages from 1)",
            )
        start = int(match.group(1))
        end = int(match.group(2) or start)
        if end < start or (ranges and start <= ranges[-1][1]):
            raise Refusal(
                INSPECTED_PAGES_INVALID,
                "--inspected-pages: ranges must be ascending and must not overlap",
            )
        ranges.append([start, end])
    return ranges


def inspection_binding(inspection: dict[str, Any], extraction_receipt_sha256: str) -> str:
    """``binding_sha256``: the inspection's other fields bound to the extraction receipt."""
    body = {key: value for key, value in inspection.items() if key != "binding_sha256"}
    body["extraction_receipt_sha256"] = extraction_receipt_sha256
    return payload_sha256(body)


def rendered_page_inspection(
    audit: dict[str, Any],
    *,
    pdf_sha256: str,
    pdf_size_bytes: int,
    page_count: int,
    ranges: list[list[int]],
) -> dict[str, Any]:
    """The inspection record for a probed PDF whose page count equals the slide count."""
    required = audit["render_required_slide_numbers"]
    covered = [n for n in required if any(start <= n <= end for start, end in ranges)]
    inspection: dict[str, Any] = {
        "schema_version": RENDERED_PAGE_INSPECTION_SCHEMA_VERSION,
        "source_pptx_sha256": audit["source_pptx_sha256"],
        "rendered_pdf_sha256": pdf_sha256,
        "rendered_pdf_size_bytes": pdf_size_bytes,
        "rendered_page_count": page_count,
        "inspected_page_ranges": ranges,
        "inspected_required_slide_numbers": covered,
        "complete": covered == required,
    }
    inspection["binding_sha256"] = inspection_binding(
        inspection, audit["extraction_receipt_sha256"]
    )
    return inspection
