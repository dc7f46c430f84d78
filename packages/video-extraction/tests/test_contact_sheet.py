"""The PNG contact sheet ``extract`` writes beside the PDFs, with the region drawn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline
from rvault_video_extraction.contact_sheet import (
    CORNER_SIZE,
    KEPT_COLOUR,
    MARK_THICKNESS,
    MAX_TILES,
    TILE_WIDTH,
    caption_lines,
    choose_tiles,
    corner_origin,
    render_contact_sheet,
    sheet_size,
    tile_height,
    tile_marks,
    tile_origin,
    zoomed_corner,
)
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.extract import ExtractRequest, contact_sheet_name, extract
from rvault_video_extraction.extract_media import _FramesOnDisk
from rvault_video_extraction.region import to_pixels


def is_red(pixel: np.ndarray) -> bool:
    blue, green, red = (int(v) for v in pixel)
    return red > 180 and blue < 90 and green < 90


def test_sheet_shows_sampled_frames_with_the_region_box(
    talk_vault: Callable[[TalkSpec], Any],
) -> None:
    spec = TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3)), noise_sigma=4)
    vault = talk_vault(spec)
    region = [0.03, 0.12, 0.66, 0.88]
    manifest = extract(
        ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0, region=region)
    )
    sheet_path = vault.outdir / contact_sheet_name(vault.video_id)
    sheet = cv2.imread(str(sheet_path), cv2.IMREAD_COLOR)
    assert sheet is not None
    tiles = choose_tiles(manifest["total_frames_extracted"], [0, 5, 10])
    assert len(tiles) == min(MAX_TILES, manifest["total_frames_extracted"])
    width, height = sheet_size(len(tiles), spec.width, spec.height, corners=True)
    assert (sheet.shape[1], sheet.shape[0]) == (width, height)
    tall = tile_height(spec.width, spec.height)
    x0, y0, x1, y1 = to_pixels(region, TILE_WIDTH, tall)
    for index in (0, len(tiles) - 1):
        left, top = tile_origin(index, spec.width, spec.height)
        middle_y, middle_x = top + (y0 + y1) // 2, left + (x0 + x1) // 2
        # the box edges are red, the slide inside it and the stage outside it are not
        assert is_red(sheet[middle_y, left + x0]) and is_red(sheet[middle_y, left + x1 - 1])
        assert is_red(sheet[top + y0, middle_x]) and is_red(sheet[top + y1 - 1, middle_x])
        assert not is_red(sheet[middle_y, left + x0 + 6])
        assert not is_red(sheet[middle_y, left + max(0, x0 - 4)])


def test_sheet_is_rewritten_with_the_auto_region_and_is_deterministic(
    talk_vault: Callable[[TalkSpec], Any],
) -> None:
    spec = TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(2)), noise_sigma=4)
    vault = talk_vault(spec)
    sheet_path = vault.outdir / contact_sheet_name(vault.video_id)
    first = extract(ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0))
    data = sheet_path.read_bytes()
    again = ExtractRequest(vault.video, vault.outdir, vault.video_id, fps=2.0, force=True)
    assert extract(again) == first
    assert sheet_path.read_bytes() == data
    sheet = cv2.imread(str(sheet_path), cv2.IMREAD_COLOR)
    x0, y0, _x1, y1 = to_pixels(first["slide_region"], TILE_WIDTH, tile_height(320, 180))
    left, top = tile_origin(0, 320, 180)
    assert is_red(sheet[top + (y0 + y1) // 2, left + x0])


def test_choose_tiles_puts_retained_samples_first_and_caps_the_count() -> None:
    assert choose_tiles(3, [0, 2]) == [0, 1, 2]
    chosen = choose_tiles(100, [7, 50])
    assert len(chosen) == MAX_TILES and {7, 50} <= set(chosen) and chosen == sorted(chosen)


def test_caption_prints_normalized_and_pixel_coordinates_and_the_flags() -> None:
    lines = caption_lines("Talk1", [0.03, 0.12, 0.66, 0.88], "auto", False, (1280, 720))
    assert "[0.03,0.12,0.66,0.88]" in lines[0] and "x 38..845, y 86..634 of 1280x720" in lines[0]
    assert "NOT verified" in lines[0]
    assert lines[1].endswith("--region 0.03,0.12,0.66,0.88 --region-verified")
    assert "no slide region" in caption_lines("Talk1", None, "none", False)[0]


def test_tile_marks_name_the_page_of_each_kept_sample() -> None:
    marks = tile_marks([0, 1, 4], retained=[0, 4], fps=2.0)
    assert [mark.kept for mark in marks] == [True, False, True]
    assert marks[0].text == "KEPT page 1 (sample 0, 0.0 s)"
    assert marks[1].text == "not kept (sample 1, 0.5 s)"
    assert marks[2].text.startswith("KEPT page 2 (sample 4, 2.0 s)")


def is_green(pixel: np.ndarray) -> bool:
    return bool(np.all(np.abs(pixel.astype(int) - np.array(KEPT_COLOUR)) <= 10))


def test_kept_tiles_are_framed_and_the_region_corners_are_zoomed() -> None:
    """Two frames (a white slide on a dark stage, region = the slide): the kept one is framed
    green, the other not; each corner zoom has the red region edges at the slide's corner."""
    frame = np.full((180, 320, 3), 20, np.uint8)
    frame[30:150, 40:260] = 250
    region = [40 / 320, 30 / 180, 260 / 320, 150 / 180]
    marks = tile_marks([0, 1], retained=[1], fps=1.0)
    png = render_contact_sheet([frame, frame.copy()], region, ["caption"], marks)
    sheet = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert (sheet.shape[1], sheet.shape[0]) == sheet_size(2, 320, 180, corners=True)
    tall = tile_height(320, 180)
    for index, kept in ((0, False), (1, True)):
        left, top = tile_origin(index, 320, 180)
        edge = sheet[top + tall // 2, left - MARK_THICKNESS + 1]
        assert is_green(edge) is kept
    box = to_pixels(region, 320, 180)
    for corner in range(4):
        zoom = zoomed_corner(frame, box, corner)
        assert zoom.shape == (CORNER_SIZE, CORNER_SIZE, 3)
        red_columns = [x for x in range(CORNER_SIZE) if all(is_red(p) for p in zoom[:, x])]
        red_rows = [y for y in range(CORNER_SIZE) if all(is_red(p) for p in zoom[y, :])]
        assert len(red_columns) == 1 and len(red_rows) == 1
        x, y = red_columns[0], red_rows[0]
        # the slide (white) lies on the inner side of both red lines, the stage outside
        inner_x = x + 3 if corner in (0, 2) else x - 3
        inner_y = y + 3 if corner in (0, 1) else y - 3
        outer_x = x - 3 if corner in (0, 2) else x + 3
        assert zoom[inner_y, inner_x].min() > 200 and zoom[inner_y, outer_x].max() < 60
        left, top = corner_origin(corner, 2, 320, 180)
        assert np.array_equal(sheet[top : top + CORNER_SIZE, left : left + CORNER_SIZE], zoom)


def test_frames_read_on_use_give_the_same_sheet_and_the_same_refusal(tmp_path: Path) -> None:
    """The sheet decodes each tile's JPEG when it draws it (12 decoded 720p frames held at
    once were 33 MB of the run's peak): the PNG is the one frames read up front give, and a
    vanished intermediate is still ``intermediate_unreadable`` naming its sample."""
    paths = []
    for index in range(4):
        frame = np.full((180, 320, 3), 30 + 50 * index, np.uint8)
        frame[40:140, 60:260] = 250 - 40 * index
        path = tmp_path / f"sample-{index:06d}.jpg"
        assert cv2.imwrite(str(path), frame)
        paths.append(path)
    tiles = [3, 1, 2]
    region = [60 / 320, 40 / 180, 260 / 320, 140 / 180]
    marks = tile_marks(tiles, retained=[1, 3], fps=0.5)
    eager = [cv2.imread(str(paths[index]), cv2.IMREAD_COLOR) for index in tiles]
    lazy = _FramesOnDisk(tiles, paths)
    assert len(lazy) == 3
    assert render_contact_sheet(lazy, region, ["c"], marks) == render_contact_sheet(
        eager, region, ["c"], marks
    )
    paths[2].unlink()
    with pytest.raises(VideoExtractionError) as refused:
        render_contact_sheet(lazy, region, ["c"], marks)
    assert refused.value.code == "intermediate_unreadable"
    assert refused.value.path == "2"
