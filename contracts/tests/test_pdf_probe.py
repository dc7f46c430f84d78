"""The one bounded PDF probe and no-follow reader the owners share.

pptx-evidence (rendered deck PDFs) and video-extraction (manifest PDFs) both
call :func:`rvault_contracts.pdf_probe.probe_pdf` with their own bounds; the
strictness rule and the codes are these, whoever asks. Real PDFs are written
here byte by byte (a few hundred bytes each) and parsed by pypdf.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from rvault_contracts.bounded_read import read_bounded
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.pdf_probe import probe_pdf
from rvault_testkit.pdfs import tiny_pdf

BOUNDS = {"max_bytes": 1 << 20, "max_pages": 10}


def pdf_bytes(pages: int, *, declared: int | None = None, offset_shift: int = 0) -> bytes:
    return tiny_pdf(pages, declared=declared, offset_shift=offset_shift)


def refused(path: Path, **bounds: int) -> str:
    with pytest.raises(Refusal) as raised:
        probe_pdf(path, **{**BOUNDS, **bounds})
    assert raised.value.path == str(path)
    return raised.value.code


def test_a_clean_pdf_reports_digest_size_pages_and_generation(
    tmp_path: Path, snapshot_file: Callable
) -> None:
    path = tmp_path / "deck.pdf"
    path.write_bytes(pdf_bytes(3))
    before = snapshot_file(path)
    probed = probe_pdf(path, **BOUNDS)
    assert (probed.page_count, probed.size_bytes) == (3, len(before.data))
    assert probed.sha256 == sha256_bytes(before.data)
    st = os.lstat(path)
    assert probed.generation == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    assert snapshot_file(path) == before


@pytest.mark.parametrize(
    ("data", "code", "bounds"),
    [
        (b"not a pdf at all", "pdf_not_a_pdf", {}),
        (b"%PDF-1.4 truncated", "pdf_unreadable", {}),
        (pdf_bytes(2, offset_shift=3), "pdf_repair_required", {}),
        (pdf_bytes(2, declared=3), "pdf_page_tree_incomplete", {}),
        (pdf_bytes(4), "pdf_too_many_pages", {"max_pages": 3}),
        (pdf_bytes(1), "input_too_large", {"max_bytes": 100}),
        (b"", "empty_input", {}),
    ],
    ids=["not-pdf", "truncated", "repaired", "incomplete", "pages", "bytes", "empty"],
)
def test_one_strictness_rule_and_one_set_of_codes(
    tmp_path: Path, data: bytes, code: str, bounds: dict[str, int]
) -> None:
    path = tmp_path / "x.pdf"
    path.write_bytes(data)
    assert refused(path, **bounds) == code


def test_the_reader_never_follows_a_link_and_binds_a_generation(tmp_path: Path) -> None:
    real = tmp_path / "real.pdf"
    real.write_bytes(pdf_bytes(1))
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    assert refused(link) == "symlink_refused"
    assert refused(tmp_path) == "not_regular_file"
    assert refused(tmp_path / "absent.pdf") == "input_missing"
    seen = read_bounded(real, 1 << 20).generation
    real.write_bytes(pdf_bytes(2))  # another generation of the same path
    with pytest.raises(Refusal) as raised:
        probe_pdf(real, **BOUNDS, expected_generation=seen)
    assert raised.value.code == "input_changed"
