"""Bounded probe of a rendered PDF, run inside the supervised worker.

Digest, byte size and page count come from one stable copied generation of
the file (``source.read_bounded``). The probe refuses a file over the
profile's byte ceiling, a page tree declaring more pages than the profile
allows (checked before the walk), a walk that does not reach exactly the
declared number of pages, an encrypted PDF, and any PDF pypdf could only read
by repairing it: every warning pypdf logs while reading (a broken xref table
it rebuilt, a wrong object offset, a missing ``/Type``) is a repair
diagnostic, because the pages it then reports may not be the pages a viewer
shows.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_pptx_evidence import refusals
from rvault_pptx_evidence.limits import PDF_PROBE, Limits
from rvault_pptx_evidence.source import read_bounded
from rvault_pptx_evidence.versions import PDF_PROBE_SCHEMA_VERSION

PDF_NOT_A_PDF = "pdf_not_a_pdf"
PDF_UNREADABLE = "pdf_unreadable"
PDF_ENCRYPTED = "pdf_encrypted"
PDF_REPAIR_REQUIRED = "pdf_repair_required"
PDF_TOO_MANY_PAGES = "pdf_too_many_pages"
PDF_PAGE_TREE_INCOMPLETE = "pdf_page_tree_incomplete"


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


class _Diagnostics(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _declared_count(reader: Any) -> int:
    pages = reader.trailer["/Root"]["/Pages"]
    count = pages.get("/Count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ValueError("the page tree root has no valid /Count")
    return int(count)


def probe_pdf(
    path: Path, *, limits: Limits = PDF_PROBE, expected_generation: tuple[int, ...] | None = None
) -> PdfProbe:
    shown = str(path)
    source = read_bounded(path, limits.max_pdf_bytes, label="PDF")
    if expected_generation is not None and source.generation != tuple(expected_generation):
        raise Refusal(refusals.INPUT_CHANGED, "the PDF was replaced after it was checked", shown)
    if not source.data.startswith(b"%PDF-"):
        raise Refusal(PDF_NOT_A_PDF, "the file does not start with a %PDF- header", shown)
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    diagnostics = _Diagnostics()
    logger = logging.getLogger("pypdf")
    logger.addHandler(diagnostics)
    try:
        reader = PdfReader(io.BytesIO(source.data), strict=True)
        if reader.is_encrypted:
            raise Refusal(PDF_ENCRYPTED, "the PDF is encrypted", shown)
        declared = _declared_count(reader)
        if declared > limits.max_pdf_pages:
            raise Refusal(
                PDF_TOO_MANY_PAGES,
                f"the page tree declares {declared} pages; the limit is {limits.max_pdf_pages}",
                shown,
            )
        walked = sum(1 for _ in reader.pages)
    except Refusal:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise Refusal(
            PDF_UNREADABLE, f"pypdf cannot read the PDF strictly ({type(exc).__name__})", shown
        ) from None
    except RecursionError:
        raise Refusal(PDF_UNREADABLE, "the PDF page tree nests too deeply", shown) from None
    finally:
        logger.removeHandler(diagnostics)
    if diagnostics.messages:
        raise Refusal(
            PDF_REPAIR_REQUIRED,
            f"pypdf had to repair the PDF ({len(diagnostics.messages)} diagnostics); re-export it",
            shown,
        )
    if walked != declared or walked == 0:
        raise Refusal(
            PDF_PAGE_TREE_INCOMPLETE,
            f"the page tree declares {declared} pages but the walk reached {walked}",
            shown,
        )
    return PdfProbe(source.sha256, len(source.data), walked, limits.name, source.generation)
