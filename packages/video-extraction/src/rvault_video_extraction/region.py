"""Where the slide is: automatic slide-region detection and the comparator's ignore mask.

Three layouts are common in recorded talks: full-screen slides, slides beside
a speaker camera (often 72 % of the width, full height, no frame of their
own) and full-screen slides with a picture-in-picture camera; a wide stage
shot of a projection screen is a fourth. Everything works on the grayscale
thumbnails of the decode pass.

1. The region comes from *when* things change, not from edges alone
   (:mod:`change_timing`): slides change in steps, every block of the slide
   area at the same few moments, while a speaker changes all the time at
   moments of its own. The blocks that change only with the slide steps are
   the evidence; :mod:`slide_bounds` widens their extent to the slide's
   borders on the median frame, or reports that no region is credible
   (``None``: no step moment, too little or too sparse evidence).
2. The ignore mask keeps motion out of the comparator. Motion: for each pair
   of consecutive sub-samples (half a sampling interval apart) a pixel
   "changed" when it moved by more than ``MOTION_DELTA`` grey levels; the
   change map is dilated by ``MOTION_REACH`` pixels, because a moving uniform
   shape only changes at its edges while the area it sweeps is what matters.
   Pixels whose neighbourhood changed in at least ``MOTION_FREQUENCY`` of the
   pairs keep moving. Closed edge contours of the median frame that are more
   than ``CAMERA_MOTION`` moving are camera pictures and join the mask whole
   (with a ``SLACK`` margin), and so do the moving blocks of the timing
   analysis with their neighbourhood (a speaker who moves too slowly for the
   per-pixel frequency, and the places it reaches only now and then).

The result is a candidate: the spec makes every automatic region unverified.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from rvault_video_extraction.change_timing import ChangeTiming, block_mask_to_pixels
from rvault_video_extraction.slide_bounds import find_slide_region

MOTION_DELTA = 24
MOTION_FREQUENCY = 0.35
MOTION_REACH = 7
MIN_MOTION_PAIRS = 6
MIN_CAMERA_AREA = 0.02
RECT_FILL = 0.85
CAMERA_MOTION = 0.15
SLACK = 3
SAME_BOX = 0.5
MAX_MEDIAN_FRAMES = 201

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class SceneAnalysis:
    """Per-video statistics shared by region detection and the comparator."""

    median: np.ndarray
    motion: np.ndarray


def analyse_scene(
    sequence: list[np.ndarray], sources: list[int] | None = None, max_gap: float | None = None
) -> SceneAnalysis:
    """Median frame and motion mask of a thumbnail sequence.

    ``sources`` gives the frame number behind each member. A pair of members
    from one decoded frame (two sub-samples closer than the skipped B-frames)
    says nothing and is left out. Motion frequencies count only pairs at most
    ``max_gap`` frames apart (the half interval, with slack): over a longer
    gap a slide pixel is more likely to have changed and would look like
    motion.
    """
    if sources is None:
        sources = list(range(len(sequence)))
    step = max(
        1, len(sequence) // MAX_MEDIAN_FRAMES + (1 if len(sequence) % MAX_MEDIAN_FRAMES else 0)
    )
    stack = np.stack(sequence[::step])
    median = np.median(stack, axis=0).astype(np.uint8)
    shape = sequence[0].shape
    counts = np.zeros(shape, dtype=np.int32)
    reach = cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * MOTION_REACH + 1, 2 * MOTION_REACH + 1)
    )
    pairs = 0
    for (previous, first), (current, second) in itertools.pairwise(
        zip(sequence, sources, strict=True)
    ):
        if first == second:
            continue
        if max_gap is not None and abs(second - first) > max_gap:
            continue
        pairs += 1
        delta = cv2.absdiff(previous, current)
        counts += cv2.dilate((delta > MOTION_DELTA).astype(np.uint8), reach)
    if pairs >= MIN_MOTION_PAIRS:
        moving = counts >= MOTION_FREQUENCY * pairs
    else:
        moving = np.zeros(shape, dtype=bool)
    return SceneAnalysis(median=median, motion=moving)


def candidate_rectangles(median: np.ndarray) -> list[Box]:
    """Large rectangular edge contours of the median frame, and the full frame."""
    height, width = median.shape
    edges = cv2.Canny(median, 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes: list[Box] = []
    frame_area = float(height * width)
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w * h < MIN_CAMERA_AREA * frame_area:
            continue
        if cv2.contourArea(contour) < RECT_FILL * w * h:
            continue
        box = (x, y, x + w, y + h)
        if all(_iou(box, other) < 0.9 for other in boxes):
            boxes.append(box)
    full = (0, 0, width, height)
    if all(_iou(full, other) < 0.97 for other in boxes):
        boxes.append(full)
    return boxes


def _area(box: Box) -> int:
    return max(0, box[2] - box[0]) * max(0, box[3] - box[1])


def _iou(first: Box, second: Box) -> float:
    inter = (
        max(first[0], second[0]),
        max(first[1], second[1]),
        min(first[2], second[2]),
        min(first[3], second[3]),
    )
    overlap = _area(inter) if inter[2] > inter[0] and inter[3] > inter[1] else 0
    union = _area(first) + _area(second) - overlap
    return overlap / union if union else 0.0


def _fraction(mask: np.ndarray, box: Box) -> float:
    x0, y0, x1, y1 = box
    part = mask[y0:y1, x0:x1]
    return float(part.mean()) if part.size else 0.0


def camera_boxes(scene: SceneAnalysis, boxes: list[Box]) -> list[Box]:
    """Candidate rectangles that are mostly moving: camera pictures."""
    height, width = scene.median.shape
    full = (0, 0, width, height)
    return [box for box in boxes if box != full and _fraction(scene.motion, box) >= CAMERA_MOTION]


def ignore_mask(scene: SceneAnalysis, timing: ChangeTiming, region: Box | None) -> np.ndarray:
    """Motion mask, every camera picture (and a ``SLACK`` margin) and the moving blocks.

    The margin absorbs the camera border's ringing: blur and compression smear
    the moving picture a pixel or two beyond its own edge. A framed picture
    that is the slide region itself (a projection screen a speaker walks in
    front of) is not a camera: only the speaker's own motion is ignored there.
    """
    ignore = scene.motion.copy()
    for box in camera_boxes(scene, candidate_rectangles(scene.median)):
        if region is not None and _iou(box, region) >= SAME_BOX:
            continue
        x0, y0, x1, y1 = box
        ignore[max(0, y0 - SLACK) : y1 + SLACK, max(0, x0 - SLACK) : x1 + SLACK] = True
    return ignore | block_mask_to_pixels(timing.moving_reach(), scene.median.shape)


def detect_region(scene: SceneAnalysis, timing: ChangeTiming) -> Box | None:
    """The slide region in thumbnail pixels, or None when no region is credible."""
    return find_slide_region(scene.median, timing)


def normalize(box: Box, width: int, height: int) -> list[float]:
    """Thumbnail box to the manifest's normalized [left, top, right, bottom]."""
    x0, y0, x1, y1 = box
    return [
        round(x0 / width, 4),
        round(y0 / height, 4),
        round(x1 / width, 4),
        round(y1 / height, 4),
    ]


def to_pixels(region: list[float], width: int, height: int) -> Box:
    """Normalized region to a pixel box of an image of the given size (never empty)."""
    left, top, right, bottom = region
    x0 = min(width - 1, max(0, round(left * width)))
    y0 = min(height - 1, max(0, round(top * height)))
    x1 = max(x0 + 1, min(width, round(right * width)))
    y1 = max(y0 + 1, min(height, round(bottom * height)))
    return (x0, y0, x1, y1)
