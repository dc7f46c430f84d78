"""Bounded, exact-generation PDF probe (light: pypdf is imported lazily).

The spec requires every manifest PDF to pass "the bounded exact-generation
PDF probe and match its recorded page count" before a return is persisted.
Bounded: the file is refused above ``MAX_PDF_BYTES`` and above
``MAX_PDF_PAGES`` pages. Exact generation: the bytes are read once through a
no-follow descriptor, the file's generation (device, inode, size, mtime,
ctime) is compared before and after the read, and the page count is parsed
from exactly those bytes, whose SHA-256 is reported.
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass

from rvault_contracts.canonical import sha256_bytes

MAX_PDF_BYTES = 2 * 1024**3
MAX_PDF_PAGES = 100_000


@dataclass(frozen=True)
class PdfProbe:
    path: str
    size: int
    sha256: str
    page_count: int


class PdfProbeError(Exception):
    def __init__(self, code: str, message: str, path: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path


def _generation(info: os.stat_result) -> tuple[int, int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def probe_pdf(
    path: str, *, max_bytes: int = MAX_PDF_BYTES, max_pages: int = MAX_PDF_PAGES
) -> PdfProbe:
    try:
        # O_NONBLOCK: a FIFO planted at the path is refused by type, never waited on.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise PdfProbeError("pdf_missing", "the PDF does not exist", path) from None
    except OSError as exc:
        raise PdfProbeError(
            "pdf_unreadable", f"cannot open the PDF: {exc.strerror}", path
        ) from None
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise PdfProbeError("pdf_not_regular_file", "the PDF is not a regular file", path)
        if before.st_size > max_bytes:
            raise PdfProbeError("pdf_too_large", f"the PDF exceeds {max_bytes} bytes", path)
        chunks = []
        remaining = before.st_size + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if _generation(before) != _generation(after) or len(data) != before.st_size:
        raise PdfProbeError("pdf_changed_during_probe", "the PDF changed while it was read", path)
    if not data.startswith(b"%PDF-"):
        raise PdfProbeError("pdf_invalid", "the file does not start with a PDF header", path)
    from pypdf import PdfReader, apply_configuration
    from pypdf.errors import LimitReachedError, PyPdfError

    # pypdf stops at its own page-tree entry and array-size limits (100,000 by
    # default; a flat /Kids array lists every page), which would report a PDF
    # just over max_pages as unreadable. Raise them so that our page bound
    # decides, while still bounding the walk.
    entry_limit = 2 * max_pages + 1
    limits = {"page_tree_maximum_entries": entry_limit, "array_maximum_element_count": entry_limit}
    try:
        with apply_configuration(**limits):
            reader = PdfReader(io.BytesIO(data), strict=False)
            pages = len(reader.pages)
    except LimitReachedError as exc:
        if "page tree entry" not in str(exc):
            raise PdfProbeError(
                "pdf_invalid", f"pypdf cannot read the PDF: {type(exc).__name__}", path
            ) from None
        raise PdfProbeError(
            "pdf_too_many_pages", f"the PDF page tree has more than {entry_limit} entries", path
        ) from None
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise PdfProbeError(
            "pdf_invalid", f"pypdf cannot read the PDF: {type(exc).__name__}", path
        ) from None
    if pages > max_pages:
        raise PdfProbeError("pdf_too_many_pages", f"the PDF has more than {max_pages} pages", path)
    return PdfProbe(path=path, size=len(data), sha256=sha256_bytes(data), page_count=pages)
