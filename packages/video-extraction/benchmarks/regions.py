"""Slide-region and de-duplication accuracy on talks the package's own generator did not draw.

The talks come from ``rvault_testkit.video_extraction.conference``, which
shares no drawing code with ``synthetic`` (Pillow-rendered template slides
with builds, a textured filmed speaker with sensor noise and flicker, MPEG-4
from OpenCV's ``mp4v`` writer). Per layout the sampling and analysis of an
unverified ``extract`` (no ``--region``: the same ``sample_video`` and
``analyse`` calls, without writing PDFs) run at ``--fps 0.5`` and the table
shows:

* ``detected`` and the IoU of the automatic region with the true slide box
  (``camera_only`` has no slides: the right answer is "not detected");
* true slides (shown slide images, builds counted one by one), pages,
  recall (true slides with at least one page) and duplicates (pages beyond
  one per true slide), also as a share of the true slides.

Usage (from the repository root; videos are cached in ``--workdir``)::

    .venv/bin/python packages/video-extraction/benchmarks/regions.py [--size 640x360] [--slides 18]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rvault_testkit.video_extraction.conference import (
    ConferenceTalk,
    make_deck,
    schedule,
    write_conference_mp4,
)
from rvault_video_extraction.analysis import analyse
from rvault_video_extraction.sampling import remove_frames, sample_video
from rvault_video_extraction.versioning import DEFAULT_HASH_THRESHOLD

LAYOUTS = ("side_by_side", "side_by_side_branded", "pip", "stage", "camera_only")
FPS = 0.5


def iou(region: list[float] | None, truth: tuple[float, float, float, float] | None) -> float:
    if region is None or truth is None:
        return 0.0
    left, top = max(region[0], truth[0]), max(region[1], truth[1])
    right, bottom = min(region[2], truth[2]), min(region[3], truth[3])
    inter = max(0.0, right - left) * max(0.0, bottom - top)
    union = (
        (region[2] - region[0]) * (region[3] - region[1])
        + (truth[2] - truth[0]) * (truth[3] - truth[1])
        - inter
    )
    return inter / union if union else 0.0


def score(talk: ConferenceTalk, region: list[float] | None, retained: list[int]) -> dict:
    """Pages against the shown slides; each shown slide appears once in these talks."""
    truth = talk.truth()
    keys = [talk.slide_at(index / FPS) for index in retained]
    covered = set(keys) if talk.slide_box is not None else set()
    pages = len(keys)
    true_slides = len(truth) if talk.slide_box is not None else 0
    duplicates = pages - len(covered)
    return {
        "detected": region is not None,
        "region": region,
        "iou": iou(region, talk.slide_box),
        "true_slides": true_slides,
        "pages": pages,
        "recall": len(covered) / true_slides if true_slides else 1.0,
        "duplicates": duplicates,
        "duplicate_share": duplicates / true_slides if true_slides else 0.0,
    }


def talk_for(layout: str, width: int, height: int, slides: int) -> ConferenceTalk:
    deck = make_deck(slides, seed=slides)
    return ConferenceTalk(
        layout=layout,
        width=width,
        height=height,
        fps=10.0,
        shown=schedule(deck, (5.0, 11.0), seed=slides, fade=0.4),
        seed=len(layout),
    )


def run_layout(layout: str, workdir: Path, width: int, height: int, slides: int) -> dict:
    talk = talk_for(layout, width, height, slides)
    outdir = workdir / f"{layout}-{width}x{height}-{slides}"
    outdir.mkdir(parents=True, exist_ok=True)
    video = outdir / "talk.mp4"
    if not video.exists():
        started = time.perf_counter()
        write_conference_mp4(talk, video)
        print(f"[{layout}] rendered in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    started = time.perf_counter()
    frames = outdir / "frames"
    frames.mkdir(exist_ok=True)
    try:
        result = analyse(sample_video(video, FPS, frames), DEFAULT_HASH_THRESHOLD)
    finally:
        remove_frames(frames)
    row = {"layout": layout, "seconds": round(talk.duration())}
    row["extract_s"] = round(time.perf_counter() - started, 2)
    row.update(score(talk, result.crop.region, result.retained))
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/rvault-video-regions"))
    parser.add_argument("--size", default="640x360", help="WIDTHxHEIGHT of the rendered talks")
    parser.add_argument("--slides", type=int, default=18, help="shown slide images per talk")
    parser.add_argument("--layout", action="append", choices=LAYOUTS, default=[])
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    rows = [
        run_layout(layout, args.workdir, width, height, args.slides)
        for layout in (args.layout or LAYOUTS)
    ]
    header = (
        f"{'layout':<20} {'video s':>7} {'detected':>8} {'IoU':>5} {'slides':>6} {'pages':>5} "
        f"{'recall':>7} {'dups':>4} {'dups %':>6} {'extract s':>9}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['layout']:<20} {row['seconds']:>7} {row['detected']!s:>8} {row['iou']:>5.2f} "
            f"{row['true_slides']:>6} {row['pages']:>5} {row['recall'] * 100:>6.1f}% "
            f"{row['duplicates']:>4} {row['duplicate_share'] * 100:>5.1f}% {row['extract_s']:>9.2f}"
        )
    print(json.dumps(rows, indent=1), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
