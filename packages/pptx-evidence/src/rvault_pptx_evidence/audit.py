"""The native deck audit record, shared by the extractor and the public reader.

Both must derive it identically: the extractor writes it, and
``rvault_pptx_evidence.api`` recomputes it to prove an extraction's audit is
bound to that exact document. Kept tiny (no schema or OOXML imports) so the
resource-limited extraction worker can import it.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.canonical import payload_sha256

from rvault_pptx_evidence.versions import NATIVE_DECK_AUDIT_SCHEMA_VERSION


def native_deck_audit(document: dict[str, Any]) -> dict[str, Any]:
    """The audit record bound to the exact deck and to this extraction's payload.

    ``extraction_receipt_sha256`` is the canonical payload SHA-256 of the
    document without its ``native_deck_audit`` key. No rendered-page
    inspection is bound by this pipeline (no ``--rendered-pdf`` yet).
    """
    receipt = {key: value for key, value in document.items() if key != "native_deck_audit"}
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
