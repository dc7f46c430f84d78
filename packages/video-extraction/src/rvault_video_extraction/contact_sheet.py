"""A PNG contact sheet: sampled frames with the slide region drawn on them.

An automatic region is never trusted; the spec asks a person to inspect it
and rerun with ``--region ... --region-verified``. Reading pixel coordinates
off a video by hand is where that step failed in practice, so extraction
renders this sheet: up to ``MAX_TILES`` sampled frames (the retained pages
first, then evenly spread samples), each with the region as a rectangle, and
a caption that prints the normalized coordinates and the exact command-line
flags to confirm them. Layout is fixed and deterministic (same inputs, same
PNG bytes) so tests can find the rectangle at :func:`tile_origin`.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from rvault_video_extraction.region import to_pixels

TILE_WIDTH = 320
COLUMNS = 4
MAX_TILES = 12
PAD = 8
CAPTION_HEIGHT = 64
BOX_COLOUR = (0, 0, 255)  # BGR red
BOX_THICKNESS = 2
BACKGROUND = (32, 32, 32)
TEXT_COLOUR = (240, 240, 240)


def tile_height(width: int, height: int) -> int:
    return max(1, round(height * TILE_WIDTH / width))


def sheet_size(count: int, width: int, height: int) -> tuple[int, int]:
    """(width, height) in pixels of a sheet of ``count`` tiles of ``width`` x ``height`` frames."""
    rows = max(1, -(-count // COLUMNS))
    columns = min(COLUMNS, max(1, count))
    return (
        PAD + columns * (TILE_WIDTH + PAD),
        CAPTION_HEIGHT + PAD + rows * (tile_height(width, height) + PAD),
    )


def tile_origin(index: int, width: int, height: int) -> tuple[int, int]:
    """Top-left pixel of tile ``index`` on the sheet."""
    row, column = divmod(index, COLUMNS)
    return (
        PAD + column * (TILE_WIDTH + PAD),
        CAPTION_HEIGHT + PAD + row * (tile_height(width, height) + PAD),
    )


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


def render_contact_sheet(
    frames: Sequence[np.ndarray], region: list[float] | None, lines: Sequence[str]
) -> bytes:
    """PNG bytes: ``frames`` (BGR, one size) as tiles with ``region`` outlined."""
    height, width = frames[0].shape[:2]
    sheet_w, sheet_h = sheet_size(len(frames), width, height)
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
        sheet[top : top + tall, left : left + TILE_WIDTH] = tile
    ok, encoded = cv2.imencode(".png", sheet, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise RuntimeError("OpenCV could not encode the contact sheet")
    return encoded.tobytes()
