"""Bind a rendered PDF and the pages actually inspected to a deck's audit.

Runs inside the extraction worker, after extraction: the PDF is probed
(``pdf_probe``: one stable copied generation, strict, complete page walk),
its page count must equal the deck's slide count (a PDF of another deck or
an export that dropped hidden slides cannot vouch for these slides), and the
inspected ranges must lie within it. The record then says which
render-required slides the ranges cover and whether that is all of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_pptx_evidence.audit import (
    INSPECTED_PAGES_INVALID,
    parse_page_ranges,
    rendered_page_inspection,
)
from rvault_pptx_evidence.limits import Limits
from rvault_pptx_evidence.pdf_probe import probe_pdf

RENDERED_PAGE_COUNT_MISMATCH = "rendered_page_count_mismatch"


def attach_inspection(
    document: dict[str, Any],
    pdf: Path,
    inspected_pages: str,
    *,
    limits: Limits,
    expected_generation: tuple[int, ...] | None,
) -> None:
    ranges = parse_page_ranges(inspected_pages)
    probe = probe_pdf(pdf, limits=limits, expected_generation=expected_generation)
    if probe.page_count != document["slide_count"]:
        raise Refusal(
            RENDERED_PAGE_COUNT_MISMATCH,
            f"the rendered PDF has {probe.page_count} pages but the deck has"
            f" {document['slide_count']} slides; render this exact deck",
            str(pdf),
        )
    if ranges[-1][1] > probe.page_count:
        raise Refusal(
            INSPECTED_PAGES_INVALID,
            f"--inspected-pages reaches page {ranges[-1][1]}; the PDF has {probe.page_count}",
            str(pdf),
        )
    audit = document["native_deck_audit"]
    audit["rendered_page_inspection"] = rendered_page_inspection(
        audit,
        pdf_sha256=probe.sha256,
        pdf_size_bytes=probe.size_bytes,
        page_count=probe.page_count,
        ranges=ranges,
    )
