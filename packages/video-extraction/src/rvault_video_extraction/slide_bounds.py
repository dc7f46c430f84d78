"""From slide-change evidence to the slide rectangle, or to "no credible region".

:mod:`change_timing` says which blocks change with the slides. Their extent
is the part of the slide that ever changed, usually smaller than the slide:
a template's margins, footer and background stay the same on every slide.
Each side of that extent is therefore pushed outward, on the median frame
(where the moving speaker is averaged away), to the first *border*: a
column (or row) where the picture on its outer side differs from the
picture on its inner side in most of the rows (columns) the extent spans.
The two strips compared are ``STRIP`` pixels wide and ``GAP`` pixels away
from the candidate position and each is summarised by its median, so a thin
template line (a footer rule, an underline: at most two pixels inside a
strip) leaves both sides the same colour and is crossed, while the edge
between a white slide and a dark stage or camera picture stops the search.
A side that meets no border ends at the frame's edge (full-frame slides,
slides cut by the frame). Above and below, a band whose sides continue the
slide's side borders (a static title bar or footer) is taken in
(:func:`band_top`). The search also stops before a strip that is
mostly moving blocks: a speaker picture is never part of the slide.

No region is credible, and None is returned, when no step moment was seen
(nothing ever changed the way slides change), when the evidence covers
fewer than ``MIN_EVIDENCE_SHARE`` of the blocks or more sparsely than
``MIN_DENSITY`` of the blocks of its own extent, or when the rectangle found
is smaller than ``MIN_REGION_AREA`` of the frame or not shaped like a slide:
narrower than ``MIN_ASPECT`` or wider than ``MAX_ASPECT`` times its height
(slides are 4:3 to 16:9, screens up to 21:9; a speaker who stood a while at
the frame's edge leaves a tall sliver).
"""

from __future__ import annotations

import cv2
import numpy as np

from rvault_video_extraction.change_timing import BLOCK, ChangeTiming, block_mask_to_pixels

Box = tuple[int, int, int, int]

STRIP = 6
GAP = 2
PLATEAU = 0.5
BORDER_DELTA = 24
BORDER_SHARE = 0.6
MOVING_SHARE = 0.5
INWARD = BLOCK
BAND_REACH = 0.25
GROUP_REACH = 4
GROUP_SHARE = 0.2
MIN_DENSITY = 0.15
MIN_EVIDENCE_SHARE = 0.02
MIN_REGION_AREA = 0.08
MIN_ASPECT = 0.9
MAX_ASPECT = 2.7


def main_evidence(evidence: np.ndarray) -> np.ndarray:
    """The evidence blocks of the groups that carry most of it.

    Blocks up to ``GROUP_REACH`` blocks apart form one group (the lines of
    text of one slide, its title and its picture); a group with less than
    ``GROUP_SHARE`` of the largest group's blocks is a stray (a speaker's
    excursion that happened to coincide with slide changes) and is dropped.
    """
    reach = np.ones((2 * GROUP_REACH + 1, 2 * GROUP_REACH + 1), np.uint8)
    grouped = cv2.dilate(evidence.astype(np.uint8), reach)
    count, labels = cv2.connectedComponents(grouped, connectivity=8)
    if count <= 2:
        return evidence
    sizes = np.bincount(labels[evidence], minlength=count)
    keep = sizes >= GROUP_SHARE * sizes[1:].max()
    keep[0] = False
    return evidence & keep[labels]


def evidence_extent(timing: ChangeTiming) -> Box | None:
    """Bounding box, in thumbnail pixels, of the main slide-change evidence."""
    if timing.step_count == 0:
        return None
    rows, cols = np.nonzero(main_evidence(timing.evidence))
    if rows.size < MIN_EVIDENCE_SHARE * timing.evidence.size:
        return None
    return (
        int(cols.min()) * BLOCK,
        int(rows.min()) * BLOCK,
        (int(cols.max()) + 1) * BLOCK,
        (int(rows.max()) + 1) * BLOCK,
    )


def border_steps(lines: np.ndarray, position: int) -> np.ndarray:
    """Per line of ``lines``, the grey step between the two sides of ``position``.

    ``lines[:, position]`` is the first pixel of the inner side when searching
    toward lower indices; strips of ``STRIP`` pixels, ``GAP`` away on each
    side, are compared line by line.
    """
    outer = lines[:, max(0, position - GAP - STRIP) : max(0, position - GAP)]
    inner = lines[:, position + GAP : position + GAP + STRIP]
    if outer.shape[1] == 0 or inner.shape[1] == 0:
        return np.zeros(len(lines), np.float32)
    return np.abs(np.median(outer, axis=1) - np.median(inner, axis=1))


def border_strength(lines: np.ndarray, position: int) -> float:
    """Share of ``lines`` that step by at least ``BORDER_DELTA`` at ``position``."""
    return float(np.mean(border_steps(lines, position) >= BORDER_DELTA))


def _first_border(lines: np.ndarray, start: int) -> int | None:
    """The first position at or below ``start`` with a border, at its strongest pixel."""
    for position in range(min(start, lines.shape[1] - 1), 0, -1):
        if border_strength(lines, position) >= BORDER_SHARE:
            # The step is spread over a few blurred pixels: take its strongest position.
            return _strongest(lines, position)
    return None


def _strongest(lines: np.ndarray, position: int) -> int:
    """The middle of the strongest positions within ``2 * (GAP + STRIP)`` below ``position``.

    Strips ``GAP`` away from a sharp edge see the same full step at every
    position within ``GAP`` of it, so the strongest positions form a plateau
    centred on the edge; a blurred edge peaks at its centre.
    """
    candidates = list(range(max(1, position - 2 * (GAP + STRIP)), position + 1))
    sizes = [float(np.median(border_steps(lines, at))) for at in candidates]
    peak = int(np.argmax(sizes))
    low = high = peak
    while low > 0 and sizes[low - 1] >= sizes[peak] - PLATEAU:
        low -= 1
    while high < len(sizes) - 1 and sizes[high + 1] >= sizes[peak] - PLATEAU:
        high += 1
    return candidates[(low + high + 1) // 2]


def search_side(lines: np.ndarray, moving: np.ndarray, start: int) -> int:
    """Where the slide begins on the low-index side of ``lines``, searching down from ``start``.

    ``lines`` is the median frame oriented so that the side searched lies at
    index 0 (columns for left/right, rows for top/bottom; each row of
    ``lines`` is one line across the extent's span); ``moving`` the moving
    pixel mask in the same orientation. Returns the first index inside the
    slide: the first border; without one, the first strip that is mostly
    moving (a camera picture with no visible edge); else the frame's edge.
    A speaker in front of the slide's lower edge does not hide that edge in
    the median frame, so motion only decides where no border is seen.
    """
    border = _first_border(lines, start)
    if border is not None:
        return border
    for position in range(min(start, lines.shape[1] - 1), 0, -1):
        if float(moving[:, position - 1].mean()) >= MOVING_SHARE:
            return position
    return 0


def snap_to_borders(median: np.ndarray, moving: np.ndarray, extent: Box) -> Box:
    """Push each side of ``extent`` outward to the slide's border on the median frame."""
    x0, y0, x1, y1 = extent
    image = median.astype(np.float32)
    height, width = median.shape
    span_x = slice(x0, x1)
    span_y = slice(y0, y1)
    left = search_side(image[span_y, :], moving[span_y, :], x0 + INWARD)
    right = width - search_side(image[span_y, ::-1], moving[span_y, ::-1], width - x1 + INWARD)
    top = search_side(image[:, span_x].T, moving[:, span_x].T, y0 + INWARD)
    bottom = height - search_side(
        image[::-1, span_x].T, moving[::-1, span_x].T, height - y1 + INWARD
    )
    top = band_top(image, (left, top, right, bottom))
    bottom = height - band_top(image[::-1], (left, height - bottom, right, height - top))
    return (left, top, max(right, left + 1), max(bottom, top + 1))


def _side_continues(rows: np.ndarray, position: int) -> bool:
    """Whether a border runs at ``position`` along ``rows`` (the frame's edge always does)."""
    return position <= 0 or border_strength(rows, position) >= BORDER_SHARE


def band_top(image: np.ndarray, box: Box) -> int:
    """The top of a band above ``box`` that belongs to the slide, else ``box``'s top.

    A slide template's title bar never changes when only one line of text
    changes under it, and its lower edge is a border like the slide's own.
    What gives the bar away is that the slide's left and right borders go on
    along it: the bar ends where the slide ends, while a stage or a branded
    background above the slide runs on past the slide's sides. The band may
    reach up ``BAND_REACH`` of the box's height, to the next border or the
    frame's edge.
    """
    left, top, right, bottom = box
    reach = round(BAND_REACH * (bottom - top))
    lines = image[:, left:right].T
    start = top - GAP - STRIP - 1
    upper = _first_border(lines, start) if start > 0 else None
    if upper is None or upper < top - reach:
        upper = 0 if top <= reach else None
    if upper is None or top - upper < 2 * GAP:
        return top
    rows = image[upper:top]
    width = image.shape[1]
    if _side_continues(rows, left) and _side_continues(rows[:, ::-1], width - right):
        return upper
    return top


def find_slide_region(median: np.ndarray, timing: ChangeTiming) -> Box | None:
    """The slide rectangle in thumbnail pixels, or None when no region is credible."""
    extent = evidence_extent(timing)
    if extent is None:
        return None
    x0, y0, x1, y1 = (value // BLOCK for value in extent)
    if timing.evidence[y0:y1, x0:x1].mean() < MIN_DENSITY:
        return None
    moving = block_mask_to_pixels(timing.moving, median.shape)
    box = snap_to_borders(median, moving, extent)
    height, width = median.shape
    box_width, box_height = box[2] - box[0], box[3] - box[1]
    if box_width * box_height < MIN_REGION_AREA * height * width:
        return None
    if not MIN_ASPECT <= box_width / box_height <= MAX_ASPECT:
        return None
    return box
