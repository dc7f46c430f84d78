"""PNG thumbnails of the trusted slide pages, rendered from the promoted PDF.

PDFium (pypdfium2) rasterizes the exact bytes the evidence check hashed;
Pillow encodes PNG without text chunks or timestamps, so the same PDF always
gives the same thumbnail bytes. A PDF that PDFium cannot open yields no
thumbnails and a reason, never a failed site.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from rvault_analysis_writer.site.vault_files import VaultFiles

THUMB_WIDTH = 320
MAX_PAGES = 120
PNG_LEVEL = 3  # zlib level: most of level 9's size at a fraction of its time


@dataclass(frozen=True)
class Thumbnails:
    pages: tuple[bytes, ...]
    page_count: int
    problem: str | None = None
    texts: tuple[str, ...] = ()
    """Each rendered page's text layer (PDFium), for the search index; empty for an image."""


def thumbnail_job(job: tuple[Path, str, str]) -> Thumbnails:
    """Thumbnails of ``vault_root/path`` if its bytes still have the judged digest."""
    vault_root, path, digest = job
    files = VaultFiles(vault_root)
    data = files.data(path)
    if data is None or files.sha256(path) != digest:
        return Thumbnails((), 0, "the promoted PDF changed after its evidence was checked")
    return render_thumbnails(data)


def render_thumbnails(
    pdf: bytes, *, width: int = THUMB_WIDTH, max_pages: int = MAX_PAGES
) -> Thumbnails:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as exc:
        return Thumbnails((), 0, f"the promoted PDF cannot be rendered: {exc}")
    try:
        count = len(document)
        pages, texts = [], []
        for index in range(min(count, max_pages)):
            page = document[index]
            try:
                page_width = page.get_width() or 1.0
                bitmap = page.render(scale=width / page_width)
                image = bitmap.to_pil().convert("RGB")
                textpage = page.get_textpage()
                texts.append(" ".join(textpage.get_text_range().split()))
                textpage.close()
            finally:
                page.close()
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", optimize=False, compress_level=PNG_LEVEL)
            pages.append(buffer.getvalue())
    finally:
        document.close()
    problem = None if count <= max_pages else f"only the first {max_pages} of {count} pages shown"
    return Thumbnails(tuple(pages), count, problem, tuple(texts))
