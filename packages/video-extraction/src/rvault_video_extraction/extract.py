"""``extract``: video in, two PDFs and a schema-v4 manifest out, atomically.

This module is the request and every check that can refuse before anything
is touched: arguments, the vault, VIDEO and OUTDIR. It then hands over to
:mod:`rvault_video_extraction.extract_media`, imported when an extraction
starts, so PyAV, OpenCV and NumPy load only for a running extraction (a
missing ``[media]`` extra is refused as ``dependency_missing`` before any
check), never for ``--help`` or a reader that imports this module.

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.vault_paths import (
    CONTRACT_DIR,
    locate_in_vault,
    require_utf8,
    resolve_vault_root,
)
from rvault_video_extraction.versioning import DEFAULT_FPS, DEFAULT_HASH_THRESHOLD, MAX_FPS, MIN_FPS

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


def extract(
    request: ExtractRequest, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run one extraction and return the manifest (also written to OUTDIR)."""
    # The media libraries load here, first: without the [media] extra the command is
    # refused (dependency_missing) before any check, as it always was.
    from rvault_video_extraction.extract_media import run_extraction

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
    return run_extraction(request, (video, outdir, storage), progress)
