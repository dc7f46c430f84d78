"""The one bounded, exact-generation PDF probe every owner shares.

Digest, byte size and page count come from one stable generation of the file
(:func:`rvault_contracts.bounded_read.read_bounded`). One strictness rule for
every caller: the probe refuses a file over the byte bound, a page tree
declaring more pages than the page bound (checked before the walk), a walk
that does not reach exactly the declared number of pages, an encrypted PDF,
and any PDF pypdf could only read by repairing it: every warning pypdf logs
while reading (a broken xref table it rebuilt, a wrong object offset, a
missing ``/Type``) is a repair diagnostic, because the pages it then reports
may not be the pages a viewer shows. The bounds are the caller's (a deck
export and a video page PDF differ); the rule and the codes are not.

pypdf is imported when a PDF is probed (the ``pdf`` extra), never at import.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.bounded_read import INPUT_CHANGED, read_bounded
from rvault_contracts.errors import Refusal

PDF_NOT_A_PDF = "pdf_not_a_pdf"
PDF_UNREADABLE = "pdf_unreadable"
PDF_ENCRYPTED = "pdf_encrypted"
PDF_REPAIR_REQUIRED = "pdf_repair_required"
PDF_TOO_MANY_PAGES = "pdf_too_many_pages"
PDF_PAGE_TREE_INCOMPLETE = "pdf_page_tree_incomplete"

#: The probe's own codes; a read refusal has one of ``bounded_read.CODES``.
CODES = (
    PDF_NOT_A_PDF,
    PDF_UNREADABLE,
    PDF_ENCRYPTED,
    PDF_REPAIR_REQUIRED,
    PDF_TOO_MANY_PAGES,
    PDF_PAGE_TREE_INCOMPLETE,
)

_READ_ERRORS = (ValueError, KeyError, TypeError, IndexError, AttributeError)


@dataclass(frozen=True)
class ProbedPdf:
    """What the probe proved of one generation of a PDF."""

    path: Path
    sha256: str
    size_bytes: int
    page_count: int
    generation: tuple[int, ...]


def _diagnostics() -> Any:
    """A handler that keeps pypdf's warnings (``.messages``).

    Built when a PDF is probed, beside pypdf (which imports ``logging``
    itself): a reader that imports this module without probing a PDF
    (``rvault-db status`` through the video owner's api) does not load
    ``logging`` and ``traceback`` for it.
    """
    import logging

    class Diagnostics(logging.Handler):
        def __init__(self) -> None:
            super().__init__(level=logging.WARNING)
            self.messages: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.messages.append(record.getMessage())

    return Diagnostics()


def _declared_count(reader: Any) -> int:
    pages = reader.trailer["/Root"]["/Pages"]
    count = pages.get("/Count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ValueError("the page tree root has no valid /Count")
    return int(count)


def _count_pages(data: bytes, max_pages: int, shown: str) -> tuple[int, int, list[str]]:
    """(declared, walked, repair diagnostics) of strictly parsed ``data``."""
    import logging

    from pypdf import PdfReader, apply_configuration
    from pypdf.errors import LimitReachedError, PyPdfError

    diagnostics = _diagnostics()
    logger = logging.getLogger("pypdf")
    logger.addHandler(diagnostics)
    # pypdf stops at its own page-tree entry and array-size limits (100,000 by
    # default; a flat /Kids array lists every page); raise them so that our
    # page bound decides, while still bounding the walk.
    entry_limit = 2 * max_pages + 1
    limits = {"page_tree_maximum_entries": entry_limit, "array_maximum_element_count": entry_limit}
    try:
        with apply_configuration(**limits):
            reader = PdfReader(io.BytesIO(data), strict=True)
            if reader.is_encrypted:
                raise Refusal(PDF_ENCRYPTED, "the PDF is encrypted", shown)
            declared = _declared_count(reader)
            if declared > max_pages:
                raise Refusal(
                    PDF_TOO_MANY_PAGES,
                    f"the page tree declares {declared} pages; the limit is {max_pages}",
                    shown,
                )
            walked = sum(1 for _ in reader.pages)
    except LimitReachedError as exc:
        if "page tree entry" not in str(exc):
            raise Refusal(
                PDF_UNREADABLE, f"pypdf cannot read the PDF strictly ({type(exc).__name__})", shown
            ) from None
        raise Refusal(
            PDF_TOO_MANY_PAGES, f"the PDF page tree has more than {entry_limit} entries", shown
        ) from None
    except (PyPdfError, *_READ_ERRORS) as exc:
        raise Refusal(
            PDF_UNREADABLE, f"pypdf cannot read the PDF strictly ({type(exc).__name__})", shown
        ) from None
    except RecursionError:
        raise Refusal(PDF_UNREADABLE, "the PDF page tree nests too deeply", shown) from None
    finally:
        logger.removeHandler(diagnostics)
    return declared, walked, diagnostics.messages


def probe_pdf(
    path: str | Path,
    *,
    max_bytes: int,
    max_pages: int,
    expected_generation: tuple[int, ...] | None = None,
) -> ProbedPdf:
    """Probe one PDF under the shared rule; a :class:`Refusal` names why it fails.

    ``expected_generation`` binds the probe to a generation a caller checked
    before (a supervisor handing the path to a worker): another one is
    ``input_changed``.
    """
    path = Path(path)
    shown = str(path)
    source = read_bounded(path, max_bytes, label="PDF")
    if expected_generation is not None and source.generation != tuple(expected_generation):
        raise Refusal(INPUT_CHANGED, "the PDF was replaced after it was checked", shown)
    if not source.data.startswith(b"%PDF-"):
        raise Refusal(PDF_NOT_A_PDF, "the file does not start with a %PDF- header", shown)
    declared, walked, diagnostics = _count_pages(source.data, max_pages, shown)
    if diagnostics:
        raise Refusal(
            PDF_REPAIR_REQUIRED,
            f"pypdf had to repair the PDF ({len(diagnostics)} diagnostics); re-export it",
            shown,
        )
    if walked != declared or walked == 0:
        raise Refusal(
            PDF_PAGE_TREE_INCOMPLETE,
            f"the page tree declares {declared} pages but the walk reached {walked}",
            shown,
        )
    return ProbedPdf(path, source.sha256, len(source.data), walked, source.generation)
