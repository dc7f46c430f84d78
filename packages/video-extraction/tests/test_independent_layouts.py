"""The unverified run on talks the package's own generator did not draw.

``rvault_testkit.video_extraction.conference`` shares no drawing code with
``synthetic``: Pillow-rendered template slides (margins and footer identical
on every slide, builds), a textured speaker filmed with sensor noise and
flicker, MPEG-4 from OpenCV. Each talk here is 320x180 at 10 fps, ten shown
slides of 1.5 s with 0.3 s fades, extracted at ``--fps 2`` with no
``--region`` (``stage``: a filmed projection screen with the speaker walking
across the stage below it, hands now and then over its lower edge). The
region must come out within IoU 0.9 of the true slide box,
every slide must get a page, and duplicates stay within 10 % of the slides;
a talk with no slides at all must report no region.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rvault_testkit.video_extraction.conference import (
    ConferenceTalk,
    make_deck,
    schedule,
    write_conference_mp4,
)
from rvault_video_extraction.change_timing import analyse_timing
from rvault_video_extraction.extract import ExtractRequest, extract
from rvault_video_extraction.slide_bounds import find_slide_region, snap_to_borders

FPS = 2.0
SLIDES = 10


def iou(region: list[float], truth: tuple[float, float, float, float]) -> float:
    left, top = max(region[0], truth[0]), max(region[1], truth[1])
    right, bottom = min(region[2], truth[2]), min(region[3], truth[3])
    inter = max(0.0, right - left) * max(0.0, bottom - top)
    union = (
        (region[2] - region[0]) * (region[3] - region[1])
        + (truth[2] - truth[0]) * (truth[3] - truth[1])
        - inter
    )
    return inter / union


def unverified_run(root: Path, layout: str) -> tuple[ConferenceTalk, dict[str, Any]]:
    talk = ConferenceTalk(layout=layout, shown=schedule(make_deck(SLIDES), 1.5, fade=0.3))
    outdir = root / "slides-rebuild" / "Conf01"
    outdir.mkdir(parents=True)
    video = write_conference_mp4(talk, outdir / "Conf01.mp4")
    return talk, extract(ExtractRequest(video, outdir, "Conf01", fps=FPS))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ConferenceTalk, dict]]:
    layouts = ("side_by_side", "side_by_side_branded", "pip", "stage", "camera_only")
    return {
        layout: unverified_run(tmp_path_factory.mktemp(layout) / "vault", layout)
        for layout in layouts
    }


@pytest.mark.parametrize("layout", ["side_by_side", "side_by_side_branded", "pip", "stage"])
def test_region_and_pages_of_a_talk_with_a_moving_speaker(
    runs: dict[str, tuple[ConferenceTalk, dict]], layout: str
) -> None:
    talk, manifest = runs[layout]
    assert talk.slide_box is not None
    assert manifest["slide_region_detected"] is True
    assert manifest["slide_region_method"] == "auto" and manifest["review_required"] is True
    assert iou(manifest["slide_region"], talk.slide_box) >= 0.9, manifest["slide_region"]
    keys = [talk.slide_at(frame["timestamp_seconds"]) for frame in manifest["retained_frames"]]
    assert set(keys) == set(talk.truth())
    duplicates = len(keys) - len(set(keys))
    assert duplicates <= 0.1 * len(talk.truth()), keys


def test_full_height_side_by_side_is_not_the_whole_frame(
    runs: dict[str, tuple[ConferenceTalk, dict]],
) -> None:
    """The reported failure: slides on the left 72 % had the whole frame as their region."""
    _talk, manifest = runs["side_by_side"]
    left, top, right, bottom = manifest["slide_region"]
    assert abs(right - 0.72) <= 0.02 and (left, top, bottom) == (0.0, 0.0, 1.0)


def test_a_talk_without_slides_has_no_region(
    runs: dict[str, tuple[ConferenceTalk, dict]],
) -> None:
    _talk, manifest = runs["camera_only"]
    assert manifest["slide_region_detected"] is False
    assert manifest["slide_region_applied"] is False
    assert manifest["slide_region"] is None
    assert [artifact["artifact_scope"] for artifact in manifest["artifacts"]] == [
        "full_frame_context"
    ]


def stepping_sequence() -> list[np.ndarray]:
    """Left half: a 'slide' that changes at frames 6, 12 and 18; right half: a bar moving
    one position every frame (a speaker who never holds still)."""
    frames = []
    for number in range(24):
        frame = np.full((40, 80), 30, np.uint8)
        frame[4:36, 4:36] = 200 - 40 * (number // 6)
        frame[10:30, 48 + (number % 6) * 4 : 56 + (number % 6) * 4] = 250
        frames.append(frame)
    return frames


def test_step_moments_moving_blocks_and_evidence() -> None:
    timing = analyse_timing(stepping_sequence())
    assert np.flatnonzero(timing.steps).tolist() == [5, 11, 17]
    assert timing.moving[:, 12:].any() and not timing.moving[:, :10].any()
    rows, cols = np.nonzero(timing.evidence)
    assert rows.size and cols.max() < 10


def test_border_search_crosses_a_thin_line_and_stops_at_the_slide_edge() -> None:
    """A footer rule inside the slide is crossed; the step to the dark stage is the border."""
    median = np.full((90, 160), 25, np.uint8)
    median[10:80, 20:120] = 240
    median[70, 24:116] = 120  # a thin template line below the text
    moving = np.zeros_like(median, dtype=bool)
    assert snap_to_borders(median, moving, (40, 30, 100, 60)) == (20, 10, 120, 80)


def test_side_without_border_stops_before_a_moving_picture() -> None:
    median = np.full((90, 160), 240, np.uint8)
    moving = np.zeros_like(median, dtype=bool)
    moving[:, 130:] = True
    assert snap_to_borders(median, moving, (40, 30, 100, 60)) == (0, 0, 130, 90)


def test_a_title_bar_the_slide_sides_run_along_is_taken_in() -> None:
    """The text under a static title bar changed, the bar did not: the bar ends where the
    slide's left and right borders end, so it is part of the slide."""
    median = np.full((90, 160), 25, np.uint8)
    median[10:80, 20:120] = 240
    median[10:24, 20:120] = 110  # the title bar
    moving = np.zeros_like(median, dtype=bool)
    assert snap_to_borders(median, moving, (40, 40, 100, 70)) == (20, 10, 120, 80)


def test_a_background_band_that_runs_past_the_slide_is_not_taken_in() -> None:
    """A branded strip above the slide spans the whole frame: not the slide's."""
    median = np.full((90, 160), 25, np.uint8)
    median[:8, :] = 110  # a banner across the frame, above the slide
    median[22:80, 20:120] = 240
    moving = np.zeros_like(median, dtype=bool)
    assert snap_to_borders(median, moving, (40, 40, 100, 70)) == (20, 22, 120, 80)


def test_a_slide_that_never_changes_is_no_credible_region() -> None:
    """Nothing changed the way slides change: no region rather than a guess (the whole frame)."""
    frame = np.full((90, 160), 25, np.uint8)
    frame[10:80, 20:120] = 240
    timing = analyse_timing([frame.copy() for _ in range(12)])
    assert timing.step_count == 0
    assert find_slide_region(frame, timing) is None
