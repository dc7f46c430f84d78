"""Where the slide is: automatic slide-region detection and the motion mask.

Three layouts are common in recorded talks: full-screen slides, slides beside
a speaker camera, and full-screen slides with a picture-in-picture camera.
The detector works on the grayscale thumbnails of the decode pass:

1. Motion: for each pair of consecutive sub-samples (half a sampling
   interval apart) a pixel "changed" when it moved by more than
   ``MOTION_DELTA`` grey levels; the change map is dilated by
   ``MOTION_REACH`` pixels, because a moving uniform shape only changes at
   its edges while the area it sweeps is what matters. Pixels whose
   neighbourhood changed in at least ``MOTION_FREQUENCY`` of the pairs
   belong to something that keeps moving, a speaker or a camera picture;
   slide pixels change only at transitions. That set is the motion mask,
   ignored by the comparator.
2. Candidate rectangles: closed edge contours (Canny on the per-pixel median
   frame, where the moving speaker has been averaged away) that fill at
   least ``RECT_FILL`` of their bounding box, plus the full frame. A
   rectangle of at least ``MIN_CAMERA_AREA`` whose inside is more than
   ``CAMERA_MOTION`` moving is a camera picture (side camera or
   picture-in-picture): all of it joins the motion mask. Rectangles of at
   least ``MIN_RECT_AREA`` that are not cameras are slide candidates.
3. The slide region is the smallest slide candidate that contains the
   trimmed bounding box (``TRIM`` quantiles) of the slide-change pixels
   (changed at some time, not motion, not inside a camera picture). For a
   single-slide video (no changes) it is the largest slide candidate other
   than the full frame, or the full frame.

The result is a candidate: the spec makes every automatic region unverified.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

MOTION_DELTA = 24
MOTION_FREQUENCY = 0.35
MOTION_REACH = 7
MIN_MOTION_PAIRS = 6
CHANGE_DELTA = 28
MIN_RECT_AREA = 0.12
MIN_CAMERA_AREA = 0.02
RECT_FILL = 0.85
CAMERA_MOTION = 0.15
TRIM = 0.001
SLACK = 3
GROW = 1.3
PERSISTENT = 0.6
JOIN = 4
MIN_ACTIVE_PIXELS = 4
MAX_MEDIAN_FRAMES = 201

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class SceneAnalysis:
    """Per-video statistics shared by region detection and the comparator.

    ``pair_changes`` holds, bit-packed, the changed pixels of every short
    pair (the ones the motion frequencies count), for the persistence test.
    """

    median: np.ndarray
    motion: np.ndarray
    changed: np.ndarray
    pair_changes: tuple[np.ndarray, ...] = ()


def analyse_scene(
    sequence: list[np.ndarray], sources: list[int] | None = None, max_gap: float | None = None
) -> SceneAnalysis:
    """Median frame, motion mask and ever-changed map of a thumbnail sequence.

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
    ever = np.zeros(shape, dtype=bool)
    reach = cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * MOTION_REACH + 1, 2 * MOTION_REACH + 1)
    )
    pairs = 0
    short_changes: list[np.ndarray] = []
    for (previous, first), (current, second) in itertools.pairwise(
        zip(sequence, sources, strict=True)
    ):
        if first == second:
            continue
        delta = cv2.absdiff(previous, current)
        ever |= delta > CHANGE_DELTA
        if max_gap is not None and abs(second - first) > max_gap:
            continue
        pairs += 1
        counts += cv2.dilate((delta > MOTION_DELTA).astype(np.uint8), reach)
        short_changes.append(np.packbits(delta > CHANGE_DELTA))
    if pairs >= MIN_MOTION_PAIRS:
        moving = counts >= MOTION_FREQUENCY * pairs
    else:
        moving = np.zeros(shape, dtype=bool)
    return SceneAnalysis(
        median=median, motion=moving, changed=ever, pair_changes=tuple(short_changes)
    )


def persistent_changes(scene: SceneAnalysis, content: np.ndarray) -> np.ndarray:
    """Parts of ``content`` that change in most short pairs: something that never holds still.

    A slide holds still for at least one sampling interval, so the area of a
    slide change is quiet in most half-interval pairs. A speaker walking over
    an unframed stage is not framed by a camera rectangle, and each of its
    pixels changes only now and then (too rarely for the per-pixel motion
    frequency), but the area it wanders over as a whole changes in nearly
    every pair. Connected areas of ``content`` that change in at least
    ``PERSISTENT`` of the pairs are returned.
    """
    pairs = len(scene.pair_changes)
    persistent = np.zeros_like(content)
    if pairs < MIN_MOTION_PAIRS or not content.any():
        return persistent
    # The motion mask joins in: it is the busiest part of a wandering speaker's area
    # and would otherwise cut that area into pieces that each look calmer.
    joined = cv2.dilate(
        (content | scene.motion).astype(np.uint8), np.ones((2 * JOIN + 1, 2 * JOIN + 1), np.uint8)
    )
    count, labels = cv2.connectedComponents(joined)
    if count <= 1:
        return persistent
    shape = content.shape
    active = np.zeros(count, dtype=np.int32)
    for packed in scene.pair_changes:
        change = np.unpackbits(packed, count=shape[0] * shape[1]).reshape(shape).astype(bool)
        hits = np.bincount(labels[change], minlength=count)
        active += hits >= MIN_ACTIVE_PIXELS
    for label in range(1, count):
        if active[label] >= PERSISTENT * pairs:
            persistent |= (labels == label) & content
    return persistent


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


def _contains(outer: Box, inner: Box) -> bool:
    return (
        outer[0] - SLACK <= inner[0]
        and outer[1] - SLACK <= inner[1]
        and outer[2] + SLACK >= inner[2]
        and outer[3] + SLACK >= inner[3]
    )


def camera_boxes(scene: SceneAnalysis, boxes: list[Box]) -> list[Box]:
    """Candidate rectangles that are mostly moving: camera pictures."""
    height, width = scene.median.shape
    full = (0, 0, width, height)
    return [box for box in boxes if box != full and _fraction(scene.motion, box) >= CAMERA_MOTION]


def ignore_mask(scene: SceneAnalysis, cameras: list[Box]) -> np.ndarray:
    """Motion mask plus every camera picture (and a ``SLACK`` margin), in thumbnail pixels.

    The margin absorbs the camera border's ringing: blur and compression smear
    the moving picture a pixel or two beyond its own edge.
    """
    ignore = scene.motion.copy()
    for x0, y0, x1, y1 in cameras:
        ignore[max(0, y0 - SLACK) : y1 + SLACK, max(0, x0 - SLACK) : x1 + SLACK] = True
    return ignore


def _outermost_frame(chosen: Box, slides: list[Box]) -> Box:
    """Grow to an enclosing candidate at most ``GROW`` times larger.

    A slide's static title bar or margin never changes, so the change extent
    can stop at an inner edge (title bar, frame); the slide's own border is
    the next, slightly larger rectangle.
    """
    grown = True
    while grown:
        grown = False
        for box in slides:
            if box != chosen and _contains(box, chosen) and _area(box) <= GROW * _area(chosen):
                chosen, grown = box, True
                break
    return chosen


def detect_region(scene: SceneAnalysis) -> Box | None:
    """The slide region in thumbnail pixels, or None when nothing slide-like exists."""
    height, width = scene.median.shape
    full = (0, 0, width, height)
    boxes = candidate_rectangles(scene.median)
    cameras = camera_boxes(scene, boxes)
    frame_area = float(height * width)
    slides = [
        box for box in boxes if box not in cameras and _area(box) >= MIN_RECT_AREA * frame_area
    ]
    if full not in slides:
        slides.append(full)
    content = scene.changed & ~ignore_mask(scene, cameras)
    # Slide changes are blobs (text, pictures); one-pixel lines and specks are edge ringing.
    opened = cv2.morphologyEx(content.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    content = (opened > 0) & ~persistent_changes(scene, opened > 0)
    if int(np.count_nonzero(content)) >= 8:
        ys, xs = np.nonzero(content)
        extent = (
            int(np.quantile(xs, TRIM)),
            int(np.quantile(ys, TRIM)),
            int(np.quantile(xs, 1 - TRIM)) + 1,
            int(np.quantile(ys, 1 - TRIM)) + 1,
        )
        containing = [box for box in slides if _contains(box, extent)]
        if containing:
            return _outermost_frame(min(containing, key=_area), slides)
        return extent
    still = [box for box in slides if box != full]
    if still:
        return max(still, key=_area)
    if float(scene.motion.mean()) > 0.5:
        return None
    return full


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
