"""Tiny PDFs written byte by byte, for the probes' tests (no PDF library).

A catalog, a page tree and ``len(kids)`` page objects; each knob makes one
defect a probe must name: ``declared`` overrides ``/Count`` (an incomplete
page tree), ``offset_shift`` moves every xref offset (pypdf repairs the
table, a repair diagnostic), ``repeat`` lists one page object ``pages``
times (a flat ``/Kids`` of any length at a few bytes a page).
"""

from __future__ import annotations


def tiny_pdf(
    pages: int, *, declared: int | None = None, offset_shift: int = 0, repeat: bool = False
) -> bytes:
    page_objects = 1 if repeat else pages
    kids = b"3 0 R " * pages if repeat else b" ".join(b"%d 0 R" % (3 + n) for n in range(pages))
    count = pages if declared is None else declared
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count %d /Kids [" % count + kids + b"] >>",
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1 1] >>"] * page_objects,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out) + offset_shift)
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
