"""Bounded probe of a rendered PDF, run inside the supervised worker.

The probe itself is the contracts' one PDF probe
(``rvault_contracts.pdf_probe``: one stable copied generation, strict, a
complete page walk, repair diagnostics refused); this module applies the
profile's byte and page bounds and shapes the worker's ``pdf_probe``
document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts import pdf_probe as shared
from rvault_contracts.pdf_probe import (
    PDF_ENCRYPTED,
    PDF_NOT_A_PDF,
    PDF_PAGE_TREE_INCOMPLETE,
    PDF_REPAIR_REQUIRED,
    PDF_TOO_MANY_PAGES,
    PDF_UNREADABLE,
)

from rvault_pptx_evidence.limits import PDF_PROBE, Limits
from rvault_pptx_evidence.versions import PDF_PROBE_SCHEMA_VERSION

__all__ = [
    "PDF_ENCRYPTED",
    "PDF_NOT_A_PDF",
    "PDF_PAGE_TREE_INCOMPLETE",
    "PDF_REPAIR_REQUIRED",
    "PDF_TOO_MANY_PAGES",
    "PDF_UNREADABLE",
    "PdfProbe",
    "probe_pdf",
]


@dataclass(frozen=True)
class PdfProbe:
    sha256: str
    size_bytes: int
    page_count: int
    limit_profile: str
    generation: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": PDF_PROBE_SCHEMA_VERSION,
            "kind": "pdf_probe",
            "pdf_sha256": self.sha256,
            "size_bytes": self.size_bytes,
            "page_count": self.page_count,
            "limit_profile": self.limit_profile,
        }


def probe_pdf(
    path: Path, *, limits: Limits = PDF_PROBE, expected_generation: tuple[int, ...] | None = None
) -> PdfProbe:
    probed = shared.probe_pdf(
        path,
        max_bytes=limits.max_pdf_bytes,
        max_pages=limits.max_pdf_pages,
        expected_generation=expected_generation,
    )
    return PdfProbe(
        probed.sha256, probed.size_bytes, probed.page_count, limits.name, probed.generation
    )
