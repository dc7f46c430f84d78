"""The bounded exact-generation PDF probe, alone and as the validator's last check.

``probe_pdf`` reads a PDF once through a no-follow descriptor, refuses it
above 2 GiB or 100 000 pages and when its generation (device, inode, size,
mtime, ctime) changes during the read. Each refusal is a ``PdfProbeError``
with a stable code and the probed path; the validator reports the same code
at the artifact's JSON path. The probe never writes.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.errors import Refusal
from rvault_testkit.pdfs import tiny_pdf
from rvault_video_extraction import manifest_validation
from rvault_video_extraction.api import PdfProbeError, probe_pdf, validate_manifest
from rvault_video_extraction.pdf_probe import MAX_PDF_BYTES, MAX_PDF_PAGES

CONTEXT = "$.artifacts[1].path"  # the full_frame_context PDF of a verified manual extraction


def repeated_page_pdf(pages: int) -> bytes:
    """A valid PDF whose root ``/Kids`` lists one page object ``pages`` times (tiny, fast)."""
    return tiny_pdf(pages, repeat=True)


@pytest.fixture
def three_pages(tmp_path: Path) -> Path:
    path = tmp_path / "three.pdf"
    path.write_bytes(repeated_page_pdf(3))
    return path


def refusal(path: str | Path, **limits: int) -> PdfProbeError:
    with pytest.raises(PdfProbeError) as raised:
        probe_pdf(str(path), **limits)
    assert raised.value.path == str(path)
    assert isinstance(raised.value, Refusal)  # the one error value, not a restatement
    return raised.value


# --------------------------------------------------------------------------- probe_pdf alone


def test_probe_reports_the_digest_and_page_count_of_the_bytes_read(
    three_pages: Path, snapshot_file: Callable
) -> None:
    before = snapshot_file(three_pages)
    result = probe_pdf(str(three_pages))
    assert (result.page_count, result.size) == (3, len(before.data))
    assert result.sha256 == sha256_bytes(before.data)
    assert snapshot_file(three_pages) == before


def test_size_bound_is_checked_before_reading(three_pages: Path, snapshot_file: Callable) -> None:
    size = three_pages.stat().st_size
    assert probe_pdf(str(three_pages), max_bytes=size).page_count == 3
    before = snapshot_file(three_pages)
    assert refusal(three_pages, max_bytes=size - 1).code == "input_too_large"
    assert snapshot_file(three_pages) == before


def test_default_size_bound_refuses_a_sparse_file_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.pdf"
    with big.open("wb") as handle:  # sparse: 2 GiB + 1 byte costs no disk and no time
        handle.write(repeated_page_pdf(1))
        handle.truncate(MAX_PDF_BYTES + 1)
    error = refusal(big)
    assert error.code == "input_too_large" and str(MAX_PDF_BYTES) in error.message


def test_page_bound(three_pages: Path) -> None:
    assert probe_pdf(str(three_pages), max_pages=3).page_count == 3
    assert refusal(three_pages, max_pages=2).code == "pdf_too_many_pages"


def test_default_page_bound_has_its_own_code(tmp_path: Path) -> None:
    path = tmp_path / "many.pdf"
    path.write_bytes(repeated_page_pdf(MAX_PDF_PAGES + 1))
    assert refusal(path).code == "pdf_too_many_pages"


def test_missing_pdf(tmp_path: Path) -> None:
    assert refusal(tmp_path / "absent.pdf").code == "input_missing"


@pytest.mark.parametrize("kind", ["directory", "device"])
def test_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path if kind == "directory" else Path("/dev/null")
    assert refusal(path).code == "not_regular_file"


def test_symlink_or_file_parent_is_unreadable(three_pages: Path, snapshot_file: Callable) -> None:
    link = three_pages.parent / "link.pdf"
    link.symlink_to(three_pages)
    before = snapshot_file(three_pages)
    assert refusal(link).code == "symlink_refused"  # O_NOFOLLOW: never the link's target
    assert refusal(three_pages / "x.pdf").code == "input_missing"  # ENOTDIR
    assert snapshot_file(three_pages) == before and link.is_symlink()


def test_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "slides.pdf"
    os.mkfifo(fifo)
    outcome: list[str] = []

    def probe() -> None:
        try:
            probe_pdf(str(fifo))
        except PdfProbeError as error:
            outcome.append(error.code)

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout=0.5)
    blocked = worker.is_alive()
    if blocked:  # release the probe: a writer that closes at once
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=5)
    assert not blocked and outcome == ["not_regular_file"]


def _mutate_during_read(
    monkeypatch: pytest.MonkeyPatch, target: Path, change: Callable[[Path], None]
) -> list[int]:
    """Run ``change(target)`` once, right after the probe's first read of ``target``."""
    real_read = os.read
    inode = target.stat().st_ino
    calls: list[int] = []

    def read(fd: int, size: int) -> bytes:
        chunk = real_read(fd, size)
        if not calls and os.fstat(fd).st_ino == inode:
            calls.append(fd)
            change(target)
        return chunk

    monkeypatch.setattr(os, "read", read)
    return calls


def _append(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(b"\n% appended while probed\n")


def _same_size_new_mtime(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


@pytest.mark.parametrize("change", [_append, _same_size_new_mtime], ids=["grows", "retouched"])
def test_generation_change_during_the_read(
    three_pages: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]
) -> None:
    calls = _mutate_during_read(monkeypatch, three_pages, change)
    assert refusal(three_pages).code == "input_changed"
    assert calls  # the change really happened between the two fstat calls


# ----------------------------------------------------------------- inside validate_manifest


def issues_at(report: manifest_validation.ManifestReport, where: str) -> list[str]:
    return [issue.code for issue in report.issues if issue.path == where]


def test_validator_reports_an_oversized_pdf_at_its_artifact(
    extracted: tuple[Path, dict[str, Any]], snapshot_file: Callable
) -> None:
    root, manifest = extracted
    context = Path(manifest["artifacts"][1]["path"])
    context.unlink()
    with context.open("wb") as handle:
        handle.write(repeated_page_pdf(3))
        handle.truncate(MAX_PDF_BYTES + 1)
    identity = context.stat()
    region_pdf = snapshot_file(manifest["artifacts"][0]["path"])
    # The recorded size agrees (else the size check alone reports artifact_changed):
    # the probe's own bound is what refuses it, before reading a byte.
    manifest["artifacts"][1]["size_bytes"] = MAX_PDF_BYTES + 1
    report = validate_manifest(manifest, vault_root=root)
    assert issues_at(report, CONTEXT) == ["input_too_large"]
    assert report.codes == ["input_too_large"]
    assert not report.usable and not report.trusted
    assert context.as_posix() not in report.pdf_sha256
    after = context.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        identity.st_ino,
        identity.st_size,
        identity.st_mtime_ns,
    )
    assert snapshot_file(manifest["artifacts"][0]["path"]) == region_pdf


def test_validator_reports_the_page_bound_at_its_artifact(
    extracted: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, manifest = extracted
    monkeypatch.setattr(manifest_validation, "probe_pdf", functools.partial(probe_pdf, max_pages=2))
    report = validate_manifest(manifest, vault_root=root)
    assert issues_at(report, "$.artifacts[0].path") == ["pdf_too_many_pages"]
    assert issues_at(report, CONTEXT) == ["pdf_too_many_pages"]
    assert report.pdf_sha256 == {} and not report.usable


def test_validator_reports_a_pdf_changed_while_probed(
    extracted: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, manifest = extracted
    context = Path(manifest["artifacts"][1]["path"])
    calls = _mutate_during_read(monkeypatch, context, _append)
    report = validate_manifest(manifest, vault_root=root)
    assert calls and report.codes == ["input_changed"]
    assert issues_at(report, CONTEXT) == ["input_changed"]
    assert set(report.pdf_sha256) == {manifest["artifacts"][0]["path"]}
    assert not report.trusted


def _remove(path: Path, other: Path) -> None:
    path.unlink()


def _directory(path: Path, other: Path) -> None:
    path.unlink()
    path.mkdir()


def _symlink(path: Path, other: Path) -> None:
    path.unlink()
    path.symlink_to(other)


@pytest.mark.parametrize(
    ("swap", "code"),
    [
        (_remove, "input_missing"),
        (_directory, "not_regular_file"),
        (_symlink, "symlink_refused"),
    ],
    ids=["removed", "directory", "symlink"],
)
def test_pdf_swapped_after_the_path_check_is_still_refused(
    extracted: tuple[Path, dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    swap: Callable[[Path, Path], None],
    code: str,
) -> None:
    """The lstat path check and the probe are separate reads: the probe is the authority."""
    root, manifest = extracted
    context = Path(manifest["artifacts"][1]["path"])
    region_pdf = Path(manifest["artifacts"][0]["path"])

    def racing_probe(path: str, **limits: Any) -> Any:
        if path == str(context):
            swap(context, region_pdf)
        return probe_pdf(path, **limits)

    monkeypatch.setattr(manifest_validation, "probe_pdf", racing_probe)
    report = validate_manifest(manifest, vault_root=root)
    assert issues_at(report, CONTEXT) == [code]
    assert report.codes == [code]
    assert not report.usable and not report.trusted
    assert str(context) not in report.pdf_sha256
