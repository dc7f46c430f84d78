"""A minimal, deterministic PDF writer for JPEG pages.

Every page is one JPEG image drawn at 1 pt per pixel. The JPEG bytes are
embedded unchanged (``/DCTDecode``), so the context PDF reuses the sampled
frame's encoding without decoding it again, pages are streamed one at a time
(memory holds one page image, not the deck) and the output has no timestamps
or random IDs: the same frames give the same bytes. The pipeline version goes
into ``/Producer`` and ``/Creator`` as the spec requires.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class JpegPage:
    data: bytes
    width: int
    height: int


def _pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1", errors="replace") + b")"


def write_jpeg_pdf(pages: Iterable[JpegPage], *, title: str, producer: str, creator: str) -> bytes:
    """The PDF bytes of ``pages`` in order (at least one page is required)."""
    out = io.BytesIO()
    offsets: dict[int, int] = {}

    def begin(number: int) -> None:
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n" % number)

    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    page_numbers: list[int] = []
    next_number = 4
    for page in pages:
        page_number, content_number, image_number = next_number, next_number + 1, next_number + 2
        next_number += 3
        page_numbers.append(page_number)
        begin(image_number)
        out.write(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
            b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n"
            % (page.width, page.height, len(page.data))
        )
        out.write(page.data)
        out.write(b"\nendstream\nendobj\n")
        content = b"q %d 0 0 %d 0 0 cm /Im0 Do Q\n" % (page.width, page.height)
        begin(content_number)
        out.write(b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream\nendobj\n")
        begin(page_number)
        out.write(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents %d 0 R "
            b"/Resources << /XObject << /Im0 %d 0 R >> /ProcSet [/PDF /ImageC] >> >>\nendobj\n"
            % (page.width, page.height, content_number, image_number)
        )
    if not page_numbers:
        raise ValueError("a PDF needs at least one page")
    begin(1)
    out.write(b"<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
    begin(2)
    kids = b" ".join(b"%d 0 R" % number for number in page_numbers)
    out.write(b"<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n" % (kids, len(page_numbers)))
    begin(3)
    out.write(
        b"<< /Title "
        + _pdf_string(title)
        + b" /Producer "
        + _pdf_string(producer)
        + b" /Creator "
        + _pdf_string(creator)
        + b" >>\nendobj\n"
    )
    xref = out.tell()
    total = next_number
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % total)
    for number in range(1, total):
        out.write(b"%010d 00000 n \n" % offsets[number])
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R /Info 3 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (total, xref)
    )
    return out.getvalue()
