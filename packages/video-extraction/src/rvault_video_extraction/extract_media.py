"""The media half of ``extract``: decode, analyse, render and install, atomically.

:func:`rvault_video_extraction.extract.extract` has checked every argument
and path; this module does the work, and is where PyAV, OpenCV and NumPy are
imported (only a running extraction loads it). Order of work: read the
snapshots of the four outputs, decode and analyse with intermediate JPEGs in
a private ``mkdtemp`` directory inside OUTDIR, build both PDFs, the contact
sheet and the manifest in memory, and install them as one
``rvault_contracts.writer.install_bundle`` transaction. Any failure before or
during the install leaves the previous outputs byte- and inode-identical, and
the intermediate directory is removed in every case.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
from rvault_contracts.canonical import artifact_bytes, sha256_bytes
from rvault_contracts.writer import install_bundle, read_snapshot, settle_pending_bundle

from rvault_video_extraction.analysis import AnalysisResult, analyse
from rvault_video_extraction.contact_sheet import (
    caption_lines,
    choose_tiles,
    render_contact_sheet,
    tile_marks,
)
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.extract import ExtractRequest, contact_sheet_name, output_names
from rvault_video_extraction.frame_sink import JPEG_QUALITY, NO_SPACE_ERRNOS, io_failure
from rvault_video_extraction.manifest import ManifestInputs, build_manifest
from rvault_video_extraction.pdf_writer import JpegPage, write_jpeg_pdf
from rvault_video_extraction.region import to_pixels
from rvault_video_extraction.replacement import require_replaceable
from rvault_video_extraction.sampling import SampledVideo, remove_frames, sample_video
from rvault_video_extraction.source_binding import (
    SourceFacts,
    read_source,
    require_complete,
    require_unchanged,
    source_receipt,
)
from rvault_video_extraction.source_receipt import vault_relative
from rvault_video_extraction.vault_paths import locate_in_vault, make_directories, remove_created
from rvault_video_extraction.versioning import PDF_PRODUCER


def run_extraction(
    request: ExtractRequest,
    paths: tuple[Path, Path, Path],
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    """Extract the checked VIDEO into OUTDIR (``paths``: video, OUTDIR, vault storage root)."""
    video, outdir, storage = paths
    region_name, context_name, manifest_name = output_names(request.video_id)
    sheet_name = contact_sheet_name(request.video_id)
    created = make_directories(outdir, "outdir_unwritable", "OUTDIR")
    installed = False
    try:
        outdir = locate_in_vault(outdir, storage, storage, must_exist=True)
        # A bundle a kill left between its renames is settled before it is read and judged.
        settle_pending_bundle(outdir, outdir / manifest_name)
        expected = {
            name: read_snapshot(outdir / name)
            for name in (region_name, context_name, manifest_name, sheet_name)
        }
        require_replaceable(
            expected[manifest_name].data, request.force, str(outdir / manifest_name)
        )
        source = read_source(video, vault_relative(video, storage))
        _remove_dead_frames(outdir, request.video_id)
        try:
            # The pid in the name lets a later run prove a crashed run's frames dead.
            prefix = f".{request.video_id}.frames-{os.getpid()}-"
            frames_dir = Path(tempfile.mkdtemp(prefix=prefix, dir=outdir))
        except OSError as exc:
            if exc.errno in NO_SPACE_ERRNOS:
                raise io_failure(exc, "into OUTDIR", outdir) from None
            raise VideoExtractionError(
                "outdir_unwritable", f"cannot write into OUTDIR: {exc.strerror}", str(outdir)
            ) from None
        try:
            manifest, summary = _extract_into(
                request, source, (video, outdir, frames_dir), expected, progress
            )
        except OSError as exc:
            # Intermediate frames, crops: a full disk or failing device is a refusal
            # with nothing installed (the writer maps its own failures the same way).
            raise io_failure(exc, "an intermediate file", exc.filename or outdir) from None
        installed = True
    finally:
        if not installed:
            remove_created(created)
    if progress is not None:
        progress(summary)
    return manifest


def _context_pages(sampled: SampledVideo, retained: list[int]) -> Iterator[JpegPage]:
    for index in retained:
        data = sampled.frame_paths[index].read_bytes()
        yield JpegPage(data, sampled.width, sampled.height)


def _cropped_pages(
    sampled: SampledVideo, retained: list[int], region: list[float]
) -> Iterator[JpegPage]:
    x0, y0, x1, y1 = to_pixels(region, sampled.width, sampled.height)
    for index in retained:
        frame = cv2.imread(str(sampled.frame_paths[index]), cv2.IMREAD_COLOR)
        if frame is None:
            raise VideoExtractionError(
                "intermediate_unreadable", "an intermediate frame vanished", str(index)
            )
        ok, encoded = cv2.imencode(
            ".jpg", frame[y0:y1, x0:x1], [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
        )
        if not ok:
            raise VideoExtractionError("jpeg_encode_failed", "a cropped page could not be encoded")
        yield JpegPage(encoded.tobytes(), x1 - x0, y1 - y0)


class _FramesOnDisk(Sequence[Any]):
    """The contact sheet's frames, each decoded from its intermediate JPEG when used.

    The sheet uses one frame at a time (a tile, then the corner zooms), so
    twelve decoded 720p frames (33 MB) were never needed together; reading
    one twice costs a few milliseconds.
    """

    def __init__(self, tiles: list[int], paths: list[Path]) -> None:
        self.tiles = tiles
        self.paths = paths

    def __len__(self) -> int:
        return len(self.tiles)

    def __getitem__(self, position: Any) -> Any:
        index = self.tiles[position]
        frame = cv2.imread(str(self.paths[index]), cv2.IMREAD_COLOR)
        if frame is None:
            raise VideoExtractionError(
                "intermediate_unreadable", "an intermediate frame vanished", str(index)
            )
        return frame


def _contact_sheet(video_id: str, sampled: SampledVideo, result: AnalysisResult) -> bytes:
    tiles = choose_tiles(sampled.sample_count, result.retained)
    frames = _FramesOnDisk(tiles, sampled.frame_paths)
    crop = result.crop
    return render_contact_sheet(
        frames,
        crop.region,
        caption_lines(
            video_id, crop.region, crop.method, crop.verified, (sampled.width, sampled.height)
        ),
        tile_marks(tiles, result.retained, sampled.fps_used),
    )


def _remove_dead_frames(outdir: Path, video_id: str) -> None:
    """Remove the intermediate frames of earlier runs of this id whose process is gone.

    A killed run cannot clean up after itself; its directory is named
    ``.{id}.frames-{pid}-*``, so a directory (not a link) whose pid no longer
    runs is provably a dead run's and ``remove_frames`` empties it of the
    names extract writes and removes it. Anything else is left alone.
    """
    pattern = re.compile(re.escape(f".{video_id}.frames-") + r"([0-9]{1,10})-[^/]+")
    try:
        entries = list(os.scandir(outdir))
    except OSError:
        return
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(match[1])
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            continue  # alive (or someone else's): not ours to remove
        except ProcessLookupError:
            remove_frames(Path(entry.path))
        except OSError:
            continue


def _extract_into(
    request: ExtractRequest,
    source: SourceFacts,
    paths: tuple[Path, Path, Path],
    expected: dict[str, Any],
    progress: Callable[[str], None] | None,
) -> tuple[dict[str, Any], str]:
    video, outdir, frames_dir = paths
    region_name, context_name, manifest_name = output_names(request.video_id)
    started = time.monotonic()
    try:
        sampled = sample_video(video, request.fps, frames_dir, progress)
        require_unchanged(video, source)
        receipt = source_receipt(source, sampled, request.fps)
        require_complete(receipt, request.allow_incomplete, video)
        result: AnalysisResult = analyse(
            sampled, request.hash_threshold, request.region, request.region_verified
        )
        if progress is not None:
            progress(
                f"retained {len(result.retained)} of {sampled.sample_count} samples; writing PDFs"
            )
        context_pdf, region_pdf = _pdfs(request.video_id, sampled, result)
        manifest = _manifest(
            request, (video, outdir), sampled, result, receipt, (context_pdf, region_pdf)
        )
        sheet = _contact_sheet(request.video_id, sampled, result)
        install_bundle(
            outdir,
            {
                region_name: region_pdf,
                context_name: context_pdf,
                contact_sheet_name(request.video_id): sheet,
                manifest_name: artifact_bytes(manifest),
            },
            expected=expected,
            lock_target=outdir / manifest_name,
        )
    finally:
        remove_frames(frames_dir)
    summary = (
        f"done: {len(result.retained)} slides retained from {sampled.sample_count} samples "
        f"in {time.monotonic() - started:.1f}s; check the region on "
        f"{outdir / contact_sheet_name(request.video_id)}"
    )
    return manifest, summary


def _pdfs(
    video_id: str, sampled: SampledVideo, result: AnalysisResult
) -> tuple[bytes, bytes | None]:
    """(context PDF, slide-region PDF or None when no region is applied), same page order."""
    context_pdf = write_jpeg_pdf(
        _context_pages(sampled, result.retained),
        title=f"{video_id} full-frame context",
        producer=PDF_PRODUCER,
        creator=PDF_PRODUCER,
    )
    crop = result.crop
    if not crop.applied or crop.region is None:
        return context_pdf, None
    region_pdf = write_jpeg_pdf(
        _cropped_pages(sampled, result.retained, crop.region),
        title=f"{video_id} slide region",
        producer=PDF_PRODUCER,
        creator=PDF_PRODUCER,
    )
    return context_pdf, region_pdf


def _manifest(
    request: ExtractRequest,
    paths: tuple[Path, Path],
    sampled: SampledVideo,
    result: AnalysisResult,
    receipt: dict[str, Any],
    pdfs: tuple[bytes, bytes | None],
) -> dict[str, Any]:
    """The v4 manifest of this run: outputs named in OUTDIR, each PDF with its digest."""
    video, outdir = paths
    region_name, context_name, _ = output_names(request.video_id)
    context_pdf, region_pdf = pdfs
    region_path = str(outdir / region_name) if region_pdf is not None else None
    context_path = str(outdir / context_name)
    digests = {context_path: (sha256_bytes(context_pdf), len(context_pdf))}
    if region_path is not None and region_pdf is not None:
        digests[region_path] = (sha256_bytes(region_pdf), len(region_pdf))
    crop = result.crop
    return build_manifest(
        ManifestInputs(
            video_id=request.video_id,
            video_path=str(video),
            slide_region_pdf=region_path,
            context_pdf=context_path,
            total_samples=sampled.sample_count,
            retained=result.retained,
            hash_threshold=request.hash_threshold,
            fps=request.fps,
            region=crop.region,
            detected=crop.detected,
            applied=crop.applied,
            method=crop.method,
            verified=crop.verified,
            source_receipt=receipt,
            pdf_digests=digests,
        )
    )
