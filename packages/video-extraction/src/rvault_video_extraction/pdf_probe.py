"""Bounded, exact-generation PDF probe (light: pypdf is imported lazily).

The spec requires every manifest PDF to pass "the bounded exact-generation
PDF probe and match its recorded page count" before a return is persisted.
The probe is the contracts' one PDF probe (``rvault_contracts.pdf_probe``:
one no-follow read of one stable generation, strict parsing, repair
diagnostics and an incomplete page tree refused), with this owner's bounds:
``MAX_PDF_BYTES`` and ``MAX_PDF_PAGES``. Its refusal is a
:class:`PdfProbeError` carrying the shared code (``input_missing``,
``input_too_large``, ``pdf_not_a_pdf``, ``pdf_too_many_pages`` ...), which
the manifest validator reports at the artifact's JSON path.
"""

from __future__ import annotations

from dataclasses import dataclass

from rvault_contracts import pdf_probe as shared
from rvault_contracts.errors import Refusal

MAX_PDF_BYTES = 2 * 1024**3
MAX_PDF_PAGES = 100_000


@dataclass(frozen=True)
class PdfProbe:
    path: str
    size: int
    sha256: str
    page_count: int


class PdfProbeError(Refusal):
    """The probe's refusal: the shared code, its message and the probed path."""

    def __init__(self, code: str, message: str, path: str) -> None:
        super().__init__(code, message, path)


def probe_pdf(
    path: str, *, max_bytes: int = MAX_PDF_BYTES, max_pages: int = MAX_PDF_PAGES
) -> PdfProbe:
    try:
        probed = shared.probe_pdf(path, max_bytes=max_bytes, max_pages=max_pages)
    except Refusal as exc:
        raise PdfProbeError(exc.code, exc.message, path) from None
    return PdfProbe(
        path=path, size=probed.size_bytes, sha256=probed.sha256, page_count=probed.page_count
    )
