"""From sampled thumbnails to retained samples and crop provenance.

This is the pure part of extraction (no files are written here): choose the
region (manual, or automatic), build the comparator over that region with the
motion mask, and select the retained samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rvault_video_extraction.change_timing import analyse_timing
from rvault_video_extraction.dedupe import select_retained
from rvault_video_extraction.perceptual import FrameComparator, PreparedThumbnails
from rvault_video_extraction.region import (
    Box,
    analyse_scene,
    detect_region,
    ignore_mask,
    normalize,
    to_pixels,
)
from rvault_video_extraction.sampling import SampledVideo


@dataclass(frozen=True)
class CropDecision:
    """Crop provenance exactly as the manifest records it."""

    region: list[float] | None
    detected: bool
    applied: bool
    method: str
    verified: bool


@dataclass(frozen=True)
class AnalysisResult:
    crop: CropDecision
    retained: list[int]
    stable: list[bool]


def decide_crop(
    manual_region: list[float] | None,
    manual_verified: bool,
    detected_box: Box | None,
    thumb_shape: tuple[int, int],
) -> CropDecision:
    """Manual region wins; an auto region is never verified (spec, v2 provenance)."""
    if manual_region is not None:
        return CropDecision(
            region=list(manual_region),
            detected=False,
            applied=True,
            method="manual",
            verified=manual_verified,
        )
    if detected_box is None:
        return CropDecision(
            region=None, detected=False, applied=False, method="none", verified=False
        )
    height, width = thumb_shape
    return CropDecision(
        region=normalize(detected_box, width, height),
        detected=True,
        applied=True,
        method="auto",
        verified=False,
    )


def analyse(
    sampled: SampledVideo,
    hash_threshold: int,
    manual_region: list[float] | None = None,
    manual_verified: bool = False,
) -> AnalysisResult:
    sequence = sampled.sequence()
    # Sub-samples are half an interval apart; allow 1.5x that for decode-time jitter.
    max_gap = 0.75 * sampled.video_fps / sampled.fps_used
    scene = analyse_scene(sequence, sampled.sequence_sources(), max_gap)
    timing = analyse_timing(sequence, sampled.sequence_sources())
    height, width = scene.median.shape
    detected = None if manual_region is not None else detect_region(scene, timing)
    crop = decide_crop(manual_region, manual_verified, detected, (height, width))
    box = (
        to_pixels(crop.region, width, height) if crop.region is not None else (0, 0, width, height)
    )
    x0, y0, x1, y1 = box
    ignore = ignore_mask(scene, timing, box if crop.region is not None else None)[y0:y1, x0:x1]
    if ignore.mean() > 0.6:
        ignore = np.zeros_like(ignore)
    comparator = FrameComparator(box, ignore, scene.median[y0:y1, x0:x1], hash_threshold)
    samples = PreparedThumbnails(comparator, sampled.samples)
    halves = PreparedThumbnails(comparator, sampled.halves)
    selection = select_retained(comparator, samples, halves)
    return AnalysisResult(crop=crop, retained=selection.retained, stable=selection.stable)
