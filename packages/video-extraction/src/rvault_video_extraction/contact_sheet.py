"""A PNG contact sheet: sampled frames with the slide region drawn on them.

An automatic region is never trusted; the spec asks a person to inspect it
and rerun with ``--region ... --region-verified``. Reading pixel coordinates
off a video by hand is where that step failed in practice, so extraction
renders this sheet: up to ``MAX_TILES`` sampled frames (the retained pages
first, then evenly spread samples), each with the region as a rectangle and
a label above it that says whether the sample was *kept* (a page: green
label and green frame) or not (grey), and a caption that prints the
normalized coordinates and the exact command-line flags to confirm them.
Below the tiles, the region's four corners are shown zoomed (nearest
neighbour, so pixels stay pixels) from the first kept page, with the region's
edges as thin red lines between pixels: whether a line sits on the slide's
edge, inside the slide or out on the stage can be judged there, which a
320-pixel tile cannot show. Layout is fixed and deterministic (same inputs,
same PNG bytes) so tests can find the rectangle at :func:`tile_origin` and
the zooms at :func:`corner_origin`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from rvault_video_extraction.region import to_pixels

TILE_WIDTH = 320
COLUMNS = 4
MAX_TILES = 12
PAD = 8
CAPTION_HEIGHT = 64
LABEL_HEIGHT = 18
CORNER_SIZE = 200
CORNER_REACH = 0.05
MIN_CORNER_REACH = 8
KEPT_COLOUR = (80, 200, 80)  # BGR green
SKIPPED_COLOUR = (150, 150, 150)
MARK_THICKNESS = 3
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
BOX_COLOUR = (0, 0, 255)  # BGR red
BOX_THICKNESS = 2
BACKGROUND = (32, 32, 32)
TEXT_COLOUR = (240, 240, 240)


def tile_height(width: int, height: int) -> int:
    return max(1, round(height * TILE_WIDTH / width))


def row_height(width: int, height: int) -> int:
    return LABEL_HEIGHT + tile_height(width, height) + PAD


def sheet_size(count: int, width: int, height: int, corners: bool = False) -> tuple[int, int]:
    """(width, height) in pixels of a sheet of ``count`` tiles of ``width`` x ``height`` frames.

    ``corners``: the sheet also has the row of zoomed region corners.
    """
    rows = max(1, -(-count // COLUMNS))
    columns = COLUMNS if corners else min(COLUMNS, max(1, count))
    corner_row = LABEL_HEIGHT + CORNER_SIZE + PAD if corners else 0
    return (
        PAD + columns * (TILE_WIDTH + PAD),
        CAPTION_HEIGHT + PAD + rows * row_height(width, height) + corner_row,
    )


def tile_origin(index: int, width: int, height: int) -> tuple[int, int]:
    """Top-left pixel of tile ``index`` on the sheet (its label is just above it)."""
    row, column = divmod(index, COLUMNS)
    return (
        PAD + column * (TILE_WIDTH + PAD),
        CAPTION_HEIGHT + PAD + row * row_height(width, height) + LABEL_HEIGHT,
    )


def corner_origin(corner: int, count: int, width: int, height: int) -> tuple[int, int]:
    """Top-left pixel of zoomed corner ``corner`` (index into ``CORNERS``) below ``count`` tiles."""
    rows = max(1, -(-count // COLUMNS))
    return (
        PAD + corner * (TILE_WIDTH + PAD),
        CAPTION_HEIGHT + PAD + rows * row_height(width, height) + LABEL_HEIGHT,
    )


@dataclass(frozen=True)
class TileMark:
    """What a tile's label says: kept (a page) or not, and which sample at what time."""

    kept: bool
    text: str


def tile_marks(tiles: Sequence[int], retained: Sequence[int], fps: float) -> list[TileMark]:
    """Labels of the chosen tiles: ``page N`` for retained samples, ``not kept`` otherwise."""
    pages = {sample: page for page, sample in enumerate(retained, start=1)}
    marks = []
    for sample in tiles:
        when = f"sample {sample}, {sample / fps:.1f} s"
        page = pages.get(sample)
        text = f"KEPT page {page} ({when})" if page is not None else f"not kept ({when})"
        marks.append(TileMark(kept=page is not None, text=text))
    return marks


def choose_tiles(sample_count: int, retained: Sequence[int]) -> list[int]:
    """Retained samples first (what becomes pages), then evenly spread others, in time order."""
    chosen = list(dict.fromkeys(retained))[:MAX_TILES]
    if len(chosen) < MAX_TILES and sample_count > len(chosen):
        spare = [index for index in range(sample_count) if index not in set(chosen)]
        room = MAX_TILES - len(chosen)
        step = max(1, len(spare) / room)
        chosen += [spare[int(k * step)] for k in range(min(room, len(spare)))]
    return sorted(set(chosen))


def caption_lines(
    video_id: str,
    region: list[float] | None,
    method: str,
    verified: bool,
    frame_size: tuple[int, int] | None = None,
) -> list[str]:
    if region is None:
        return [
            f"{video_id}: no slide region detected (nothing cropped)",
            "draw one with --region LEFT,TOP,RIGHT,BOTTOM --region-verified",
        ]
    coords = ",".join(f"{value:g}" for value in region)
    state = "verified" if verified else "NOT verified"
    pixels = ""
    if frame_size is not None:
        x0, y0, x1, y1 = to_pixels(region, *frame_size)
        pixels = f" = x {x0}..{x1}, y {y0}..{y1} of {frame_size[0]}x{frame_size[1]} px"
    return [
        f"{video_id}: slide region [{coords}]{pixels} ({method}, {state}; red box)",
        f"if it frames the slides exactly: --region {coords} --region-verified",
    ]


def _text(sheet: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, ...]) -> None:
    cv2.putText(sheet, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.42, colour, 1, cv2.LINE_AA)


def _mark_tile(sheet: np.ndarray, mark: TileMark, left: int, top: int, tall: int) -> None:
    colour = KEPT_COLOUR if mark.kept else SKIPPED_COLOUR
    _text(sheet, mark.text, (left, top - 5), colour)
    if mark.kept:
        # In the padding around the tile: the tile's own pixels stay as sampled.
        edge = MARK_THICKNESS
        cv2.rectangle(
            sheet,
            (left - edge, top - edge),
            (left + TILE_WIDTH + edge - 1, top + tall + edge - 1),
            KEPT_COLOUR,
            edge,
        )


def zoomed_corner(frame: np.ndarray, box: tuple[int, int, int, int], corner: int) -> np.ndarray:
    """A ``CORNER_SIZE`` square zoom around one corner of ``box`` with the box's edges in red.

    The window is ``CORNER_REACH`` of the frame's smaller side each way from
    the corner (at least ``MIN_CORNER_REACH`` pixels), shifted to stay inside
    the frame; the edges are drawn as one-pixel lines on the boundary between
    the zoomed pixels, so the pixels on both sides stay visible.
    """
    height, width = frame.shape[:2]
    x0, y0, x1, y1 = box
    point_x = x0 if corner in (0, 2) else x1
    point_y = y0 if corner in (0, 1) else y1
    reach = max(MIN_CORNER_REACH, round(CORNER_REACH * min(width, height)))
    side = min(2 * reach, width, height)
    left = min(max(0, point_x - reach), width - side)
    top = min(max(0, point_y - reach), height - side)
    window = frame[top : top + side, left : left + side]
    zoom = cv2.resize(window, (CORNER_SIZE, CORNER_SIZE), interpolation=cv2.INTER_NEAREST)
    scale = CORNER_SIZE / side
    line_x = min(CORNER_SIZE - 1, round((point_x - left) * scale))
    line_y = min(CORNER_SIZE - 1, round((point_y - top) * scale))
    zoom[:, line_x] = BOX_COLOUR
    zoom[line_y, :] = BOX_COLOUR
    return zoom


def _draw_corners(sheet: np.ndarray, frame: np.ndarray, region: list[float], count: int) -> None:
    height, width = frame.shape[:2]
    box = to_pixels(region, width, height)
    for corner, name in enumerate(CORNERS):
        left, top = corner_origin(corner, count, width, height)
        point = (box[0] if corner in (0, 2) else box[2], box[1] if corner in (0, 1) else box[3])
        _text(
            sheet,
            f"{name} corner at x {point[0]}, y {point[1]} (zoomed)",
            (left, top - 5),
            TEXT_COLOUR,
        )
        sheet[top : top + CORNER_SIZE, left : left + CORNER_SIZE] = zoomed_corner(
            frame, box, corner
        )


def render_contact_sheet(
    frames: Sequence[np.ndarray],
    region: list[float] | None,
    lines: Sequence[str],
    marks: Sequence[TileMark] | None = None,
) -> bytes:
    """PNG bytes: ``frames`` (BGR, one size) as tiles with ``region`` outlined.

    ``marks`` label the tiles (kept or not); the corner zooms come from the
    first kept frame (the first frame without marks) when there is a region.
    """
    height, width = frames[0].shape[:2]
    corners = region is not None
    sheet_w, sheet_h = sheet_size(len(frames), width, height, corners)
    sheet = np.empty((sheet_h, sheet_w, 3), np.uint8)
    sheet[:] = BACKGROUND
    for row, line in enumerate(lines):
        cv2.putText(
            sheet,
            line,
            (PAD, 24 + 26 * row),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            TEXT_COLOUR,
            1,
            cv2.LINE_AA,
        )
    tall = tile_height(width, height)
    for index, frame in enumerate(frames):
        tile = cv2.resize(frame, (TILE_WIDTH, tall), interpolation=cv2.INTER_AREA)
        if region is not None:
            x0, y0, x1, y1 = to_pixels(region, TILE_WIDTH, tall)
            cv2.rectangle(tile, (x0, y0), (x1 - 1, y1 - 1), BOX_COLOUR, BOX_THICKNESS)
        left, top = tile_origin(index, width, height)
        if marks is not None:
            _mark_tile(sheet, marks[index], left, top, tall)
        sheet[top : top + tall, left : left + TILE_WIDTH] = tile
    if region is not None:
        kept = [i for i, mark in enumerate(marks or []) if mark.kept]
        _draw_corners(sheet, frames[kept[0] if kept else 0], region, len(frames))
    ok, encoded = cv2.imencode(".png", sheet, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise RuntimeError("OpenCV could not encode the contact sheet")
    return encoded.tobytes()
