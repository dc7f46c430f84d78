"""``extract``: video in, two PDFs and a schema-v4 manifest out, atomically.

Order of work: validate every argument and path first (nothing is written on
a refusal), read the snapshots of the three outputs, decode and analyse with
intermediate JPEGs in a private ``mkdtemp`` directory inside OUTDIR, build
both PDFs and the manifest in memory, and install the three files as one
``rvault_contracts.writer.install_bundle`` transaction. Any failure before or
during the install leaves the previous outputs byte- and inode-identical, and
the intermediate directory is removed in every case.

The recording may be any regular file inside the vault (a download at the
contract path ``slides-rebuild/{id}/{id}.mp4``, or a local recording
registered elsewhere in the vault): it is read where it is, never copied,
and the manifest's ``source_receipt`` records its vault-relative path and
the digest of the bytes decoded (``source_binding``). An existing manifest
is replaced only with ``force`` (``replacement``).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
from rvault_video_extraction.vault_paths import (
    CONTRACT_DIR,
    locate_in_vault,
    make_directories,
    remove_created,
    require_utf8,
    resolve_vault_root,
)
from rvault_video_extraction.versioning import (
    DEFAULT_FPS,
    DEFAULT_HASH_THRESHOLD,
    MAX_FPS,
    MIN_FPS,
    PDF_PRODUCER,
)

VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ExtractRequest:
    video: Path
    outdir: Path
    video_id: str
    fps: float = DEFAULT_FPS
    hash_threshold: int = DEFAULT_HASH_THRESHOLD
    region: list[float] | None = None
    region_verified: bool = False
    vault_root: Path | None = None
    allow_incomplete: bool = False
    """Keep a decode that stops short of the declared duration as an untrusted candidate."""
    force: bool = False
    """Replace an existing manifest (and what it trusted)."""


def output_names(video_id: str) -> tuple[str, str, str]:
    """File names of the slide-region PDF, the context PDF and the manifest."""
    return (
        f"{video_id}.slide-region.pdf",
        f"{video_id}.context.pdf",
        f"{video_id}.video-extraction.json",
    )


def contact_sheet_name(video_id: str) -> str:
    """File name of the PNG contact sheet written beside the PDFs."""
    return f"{video_id}.contact-sheet.png"


def parse_region(text: str) -> list[float]:
    """``LEFT,TOP,RIGHT,BOTTOM`` in [0, 1] with left < right and top < bottom."""
    parts = text.split(",")
    if len(parts) != 4:
        raise VideoExtractionError("invalid_region", "--region needs LEFT,TOP,RIGHT,BOTTOM")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise VideoExtractionError("invalid_region", "--region values must be numbers") from None
    check_region(values)
    return values


def check_region(values: list[float]) -> None:
    if any(not math.isfinite(value) or value < 0.0 or value > 1.0 for value in values):
        raise VideoExtractionError("invalid_region", "--region values must lie in [0, 1]")
    left, top, right, bottom = values
    if left >= right or top >= bottom:
        raise VideoExtractionError("invalid_region", "--region needs left < right and top < bottom")


def _validate(request: ExtractRequest) -> None:
    if not VIDEO_ID.fullmatch(request.video_id):
        raise VideoExtractionError("invalid_video_id", "VIDEO_ID must match [A-Za-z0-9_-]{1,64}")
    if not math.isfinite(request.fps) or not MIN_FPS <= request.fps <= MAX_FPS:
        raise VideoExtractionError(
            "invalid_fps",
            f"--fps must lie within {MIN_FPS:g}..{MAX_FPS:g} samples per second "
            f"(default {DEFAULT_FPS:g})",
        )
    if request.hash_threshold < 0 or request.hash_threshold > 256:
        raise VideoExtractionError(
            "invalid_hash_threshold", "--hash-threshold must be within 0..256 (256-bit hash)"
        )
    if request.region is not None:
        check_region(request.region)
    elif request.region_verified:
        raise VideoExtractionError(
            "region_verified_without_region", "--region-verified needs a manual --region"
        )


def _configured_root(request: ExtractRequest) -> Path:
    if request.vault_root is not None:
        return request.vault_root
    # abspath, not resolve(): a configured vault symlink must stay recognisable here.
    parent = Path(os.path.abspath(request.outdir)).parent  # noqa: PTH100
    if parent.name == "slides-rebuild":
        return parent.parent
    raise VideoExtractionError(
        "vault_root_required",
        "pass --vault-root (OUTDIR is not {vault_root}/slides-rebuild/{id})",
        str(request.outdir),
    )


def _check_contract_paths(video_id: str, video: Path, outdir: Path, storage: Path) -> None:
    """Refuse a VIDEO_ID that contradicts the contract directory it is used in.

    The spec keeps a talk's video at ``slides-rebuild/{id}/{id}.mp4`` and its
    outputs beside it; an id that disagrees with that directory would write
    ``{other}.*`` files next to the real ones, where no reader looks. Other
    locations (a manual run with ``--vault-root``) are not constrained.
    """
    for path, what in ((outdir, "OUTDIR"), (video.parent, "the video's directory")):
        parts = path.relative_to(storage).parts
        if len(parts) == 2 and parts[0] == CONTRACT_DIR and parts[1] != video_id:
            raise VideoExtractionError(
                "video_id_path_mismatch",
                f"{what} is {CONTRACT_DIR}/{parts[1]}/, the contract directory of video id "
                f"{parts[1]!r}, not {video_id!r}: pass that id, or use "
                f"{CONTRACT_DIR}/{video_id}/{video_id}.mp4",
                str(path),
            )


def _check_video(path: Path) -> None:
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise VideoExtractionError(
            "video_not_found", "the video does not exist", str(path)
        ) from None
    if not path.is_file():
        raise VideoExtractionError("not_regular_file", "the video is not a regular file", str(path))
    if info.st_size == 0:
        raise VideoExtractionError("video_empty", "the video file is empty", str(path))


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


def _contact_sheet(video_id: str, sampled: SampledVideo, result: AnalysisResult) -> bytes:
    tiles = choose_tiles(sampled.sample_count, result.retained)
    frames = []
    for index in tiles:
        frame = cv2.imread(str(sampled.frame_paths[index]), cv2.IMREAD_COLOR)
        if frame is None:
            raise VideoExtractionError(
                "intermediate_unreadable", "an intermediate frame vanished", str(index)
            )
        frames.append(frame)
    crop = result.crop
    return render_contact_sheet(
        frames,
        crop.region,
        caption_lines(
            video_id, crop.region, crop.method, crop.verified, (sampled.width, sampled.height)
        ),
        tile_marks(tiles, result.retained, sampled.fps_used),
    )


def extract(
    request: ExtractRequest, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run one extraction and return the manifest (also written to OUTDIR)."""
    _validate(request)
    configured = _configured_root(request)
    storage = resolve_vault_root(configured)
    video = locate_in_vault(request.video, configured, storage, must_exist=False)
    _check_video(video)
    outdir = locate_in_vault(request.outdir, configured, storage, must_exist=False)
    _check_contract_paths(request.video_id, video, outdir, storage)
    if outdir.exists() and not outdir.is_dir():
        raise VideoExtractionError(
            "outdir_not_directory", "OUTDIR exists and is not a directory", str(outdir)
        )
    for path in (video, outdir):
        # OpenCV's conversion of a non-UTF-8 path crashes the process instead of failing.
        require_utf8(path)
    region_name, context_name, manifest_name = output_names(request.video_id)
    sheet_name = contact_sheet_name(request.video_id)
    if video in {outdir / name for name in (region_name, context_name, manifest_name, sheet_name)}:
        raise VideoExtractionError(
            "video_is_output",
            "VIDEO is one of the files extract would replace; move it or pick another OUTDIR",
            str(video),
        )
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
