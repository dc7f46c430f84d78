"""Accuracy and speed benchmark of ``rvault-video extract``.

Generates 1280x720 30 fps talk videos with known slide sequences
(``rvault_testkit.video_extraction.synthetic``) in two codecs: H.264 from FFmpeg
libx264 (``-preset veryfast -crf 23``: B-frames with b-pyramid and x264's
default 250-frame GOP, what a 720p download usually is) and MPEG-4 Part 2
from OpenCV's ``mp4v`` writer (12-frame GOPs, no B-frames). Per case:

* two plain full decodes of the same file, each in a fresh Python process
  (so they pay the same interpreter start-up as the extractor), timed in the
  same run, alternating with the extraction passes: OpenCV ``grab()`` of
  every frame (the decode pass of the previous extractor) and PyAV decoding
  every frame with the same threading as the extractor;
* extraction: the installed ``rvault-video extract`` console script (a
  subprocess, so wall time includes start-up and the PDF/manifest install,
  and peak RSS is the child's ``ru_maxrss``);
* accuracy against the ground truth: recall of true slides, duplicate pages,
  false slides from speaker motion (a second page for a slide that was
  already retained, sampled outside any transition), and the IoU of the
  automatic region with the true slide area.

The ratio is extraction wall time over the faster of the two plain decodes
measured in the same run (best of ``--repeat`` each); ``round r`` is the
median over rounds of the same ratio within one round (steadier under load).

Usage: ``python packages/video-extraction/benchmarks/run.py [--quick] [--workdir DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rvault_testkit.video_extraction.synthetic import (
    SLIDE_BOXES,
    Segment,
    Slide,
    TalkSpec,
    label_at,
    write_h264,
    write_mp4v,
)

FPS = 0.5


@dataclass
class Case:
    name: str
    spec: TalkSpec
    codec: str = "h264"


def talk_segments(minutes: float, seed: int) -> list[Segment]:
    """A talk: distinct slides, text-only variants, builds, brief slides, returns to old slides."""
    rng = random.Random(seed)
    total = minutes * 60.0
    segments: list[Segment] = []
    elapsed = 0.0
    number = 0
    while elapsed < total:
        kind = rng.choice(["plain", "plain", "text", "build", "brief", "return"])
        if kind == "build":
            for step in range(1, 4):
                slide = Slide(
                    f"b{number}-{step}",
                    f"Building point {number}",
                    tuple(f"step {j} of the argument {number}" for j in range(step)),
                    background=number,
                )
                segments.append(Segment(slide, rng.uniform(4.0, 9.0)))
        elif kind == "text":
            for variant in range(2):
                slide = Slide(
                    f"t{number}-{variant}",
                    f"Same layout, claim {number}.{variant}",
                    (f"evidence {number * 3 + variant}", f"counterpoint {variant}", "summary"),
                    background=2,
                )
                segments.append(Segment(slide, rng.uniform(5.0, 14.0)))
        elif kind == "return" and len(segments) > 3:
            segments.append(Segment(segments[-3].slide, rng.uniform(5.0, 12.0)))
        else:
            slide = Slide(
                f"s{number}",
                f"Section {number}: topic",
                tuple(f"point {number}.{j}" for j in range(rng.randint(1, 4))),
                background=number,
                picture=rng.random() < 0.4,
            )
            seconds = 2.7 if kind == "brief" else rng.uniform(8.0, 40.0)
            segments.append(Segment(slide, seconds))
        elapsed = sum(segment.seconds for segment in segments)
        number += 1
    # Collapse accidental repeats so every segment boundary is a real change.
    collapsed: list[Segment] = []
    for segment in segments:
        if collapsed and collapsed[-1].slide.key == segment.slide.key:
            collapsed[-1] = Segment(segment.slide, collapsed[-1].seconds + segment.seconds)
        else:
            collapsed.append(segment)
    return collapsed


def cases(quick: bool) -> list[Case]:
    common = {"width": 1280, "height": 720, "fps": 30.0, "fade_seconds": 0.5, "noise_sigma": 0.0}
    minutes = 1 if quick else 3
    layouts = [("side_by_side", 1), ("pip", 3)] + ([] if quick else [("open_stage", 4)])
    return [
        Case(
            f"{layout}_{codec}_{minutes}min",
            TalkSpec(layout=layout, segments=talk_segments(minutes, seed), **common),
            codec,
        )
        for layout, seed in layouts
        for codec in ("h264", "mpeg4")
    ]


FLOOR_SCRIPT = """
import sys
import cv2
capture = cv2.VideoCapture(sys.argv[1], cv2.CAP_FFMPEG)
frames = 0
while capture.grab():
    frames += 1
print(frames)
"""

PYAV_FLOOR_SCRIPT = """
import sys
import av
container = av.open(sys.argv[1])
stream = container.streams.video[0]
stream.thread_type = "AUTO"
frames = sum(1 for _ in container.decode(stream))
print(frames)
"""


def _timed_child(command: list[str]) -> tuple[float, float, int, bytes, bytes, int]:
    """Run a child; return wall s, CPU s (user+sys), peak RSS KiB, stdout, stderr, exit code.

    ``os.wait4`` reports this child's own rusage, so neither the benchmark
    process nor FFmpeg (used to generate the videos) pollutes the figures.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss,
            out.read(),
            err.read(),
            process.returncode,
        )


def decode_floor(video: Path, script: str = FLOOR_SCRIPT) -> tuple[int, float, float]:
    """A fresh process that only decodes every frame (same start-up as extract)."""
    wall, cpu, _, stdout, stderr, code = _timed_child([sys.executable, "-c", script, str(video)])
    if code != 0:
        raise SystemExit(f"decode floor failed: {stderr.decode()}")
    return int(stdout.strip()), wall, cpu


def runs_of(spec: TalkSpec) -> list[tuple[str, float, float]]:
    """Ground-truth runs: (slide key, start, end) with consecutive repeats merged."""
    runs: list[tuple[str, float, float]] = []
    start = 0.0
    for segment in spec.segments:
        end = start + segment.seconds
        if runs and runs[-1][0] == segment.slide.key:
            runs[-1] = (runs[-1][0], runs[-1][1], end)
        else:
            runs.append((segment.slide.key, start, end))
        start = end
    return runs


def score(spec: TalkSpec, manifest: dict) -> dict[str, float]:
    runs = runs_of(spec)
    covered: dict[int, int] = {}
    motion_false = 0
    transitional = 0
    for frame in manifest["retained_frames"]:
        seconds = frame["frame_index"] / FPS
        _, fading = label_at(spec, seconds)
        run_index = next(
            i
            for i, (_, start, end) in enumerate(runs)
            if start <= seconds < end or i == len(runs) - 1
        )
        if run_index in covered:
            if fading:
                transitional += 1
            else:
                motion_false += 1
        covered[run_index] = covered.get(run_index, 0) + 1
    pages = len(manifest["retained_frames"])
    duplicates = pages - len(covered)
    return {
        "true_slides": len(runs),
        "pages": pages,
        "recall": len(covered) / len(runs),
        "duplicates": duplicates,
        "duplicate_rate": duplicates / len(runs),
        "motion_false": motion_false,
        "transitional": transitional,
    }


def iou(region: list[float] | None, truth: tuple[float, float, float, float]) -> float:
    if region is None:
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


VIDEO_ID = "BenchTalk01"


def prepare_video(case: Case, workdir: Path) -> tuple[Path, Path]:
    """(video, OUTDIR) of ``case`` in a vault under ``workdir``, rendered once and cached.

    The video sits at the contract path ``slides-rebuild/{id}/{id}.mp4``;
    ``spec.json`` beside it fingerprints the slides, timings, layout and
    codec, so a changed case is rendered again.
    """
    outdir = workdir / case.name / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True, exist_ok=True)
    video = outdir / f"{VIDEO_ID}.mp4"
    marker = outdir / "spec.json"
    fingerprint = json.dumps(
        [(s.slide.key, round(s.seconds, 3)) for s in case.spec.segments]
        + [case.spec.layout, case.codec]
    )
    if not video.exists() or not marker.exists() or marker.read_text() != fingerprint:
        started = time.perf_counter()
        (write_h264 if case.codec == "h264" else write_mp4v)(case.spec, video)
        marker.write_text(fingerprint)
        print(f"[{case.name}] generated in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    video.read_bytes()  # warm the page cache for the timed passes
    return video, outdir


@dataclass
class Passes:
    """Every timed round of one case: two plain decodes, then one extraction."""

    floors: list[float] = field(default_factory=list)
    floor_cpus: list[float] = field(default_factory=list)
    av_floors: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)
    frames: int = 0
    completed: bytes | None = None


def extract_command(video: Path, outdir: Path) -> list[str]:
    """The installed console script's extraction of ``video`` into ``outdir``.

    --force: every timed pass after the first replaces the manifest the previous one wrote.
    """
    script = Path(sys.executable).parent / "rvault-video"
    return [str(script), "extract", str(video), str(outdir), VIDEO_ID, "--fps", str(FPS), "--force"]


def timed_passes(video: Path, command: list[str], repeat: int) -> Passes:
    """``repeat`` rounds, alternating the passes so background load hits both alike."""
    passes = Passes()
    for _ in range(repeat):
        passes.frames, floor, floor_cpu = decode_floor(video)
        passes.floors.append(floor)
        passes.floor_cpus.append(floor_cpu)
        passes.av_floors.append(decode_floor(video, PYAV_FLOOR_SCRIPT)[1])
        wall, cpu, peak, stdout, stderr, code = _timed_child(command)
        if code != 0:
            raise SystemExit(f"extract failed: {stdout.decode()} {stderr.decode()}")
        passes.walls.append(wall)
        passes.cpus.append(cpu)
        passes.peaks.append(peak)
        passes.completed = stdout
    return passes


def figures(case: Case, passes: Passes, manifest: dict) -> dict[str, object]:
    """Speed against the plain decodes (best of each pass), region IoU, and every run rounded."""
    floors, av_floors, walls = passes.floors, passes.av_floors, passes.walls
    floor, wall = min(min(floors), min(av_floors)), min(walls)
    duration = passes.frames / case.spec.fps
    return {
        "case": case.name,
        "duration_s": duration,
        "frames": passes.frames,
        "cv2_floor_s": min(floors),
        "av_floor_s": min(av_floors),
        "floor_s": floor,
        "wall_s": wall,
        "floor_ratio": wall / floor,
        # Each round runs both plain decodes and one extraction back to back; the median of
        # the per-round ratios pairs measurements taken under the same background load.
        "round_ratio": statistics.median(
            w / min(f, a) for w, f, a in zip(walls, floors, av_floors, strict=True)
        ),
        "iou": iou(manifest["slide_region"], SLIDE_BOXES[case.spec.layout]),
        "floor_cpu_s": min(passes.floor_cpus),
        "cpu_s": min(passes.cpus),
        "cpu_ratio": min(passes.cpus) / min(passes.floor_cpus),
        "realtime_x": duration / wall,
        "peak_rss_mb": max(passes.peaks) / 1024.0,
        "floor_runs_s": [round(value, 2) for value in floors],
        "av_floor_runs_s": [round(value, 2) for value in av_floors],
        "wall_runs_s": [round(value, 2) for value in walls],
        "region": manifest["slide_region"],
    }


def run_case(case: Case, workdir: Path, repeat: int) -> dict[str, object]:
    """One case: its timed passes, their figures, then the last manifest's accuracy."""
    video, outdir = prepare_video(case, workdir)
    passes = timed_passes(video, extract_command(video, outdir), repeat)
    assert passes.completed is not None
    manifest = json.loads(passes.completed)
    result = figures(case, passes, manifest)
    result.update(score(case.spec, manifest))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1-minute cases, two layouts")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/rvault-video-bench"))
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed passes per case (best of each is reported)"
    )
    parser.add_argument(
        "--case", action="append", default=[], help="run only cases whose name contains this"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    chosen = [
        case
        for case in cases(args.quick)
        if not args.case or any(part in case.name for part in args.case)
    ]
    rows = [run_case(case, args.workdir, args.repeat) for case in chosen]
    header = (
        f"{'case':<24} {'dur':>5} {'slides':>6} {'pages':>5} {'recall':>7} {'dups':>5} "
        f"{'motion':>6} {'cv2 s':>6} {'av s':>6} {'wall s':>7} {'ratio':>6} {'round r':>7} "
        f"{'cpu r':>6} "
        f"{'x rt':>6} {'RSS MB':>7} {'IoU':>5}"
    )
    print(f"load average: {load:.1f} at start, {os.getloadavg()[0]:.1f} at end (1 min, 2 cores)")
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['case']:<24} {row['duration_s']:>5.0f} {row['true_slides']:>6} "
            f"{row['pages']:>5} {row['recall'] * 100:>6.1f}% {row['duplicates']:>5} "
            f"{row['motion_false']:>6} {row['cv2_floor_s']:>6.2f} {row['av_floor_s']:>6.2f} "
            f"{row['wall_s']:>7.2f} {row['floor_ratio']:>6.2f} {row['round_ratio']:>7.2f} "
            f"{row['cpu_ratio']:>6.2f} "
            f"{row['realtime_x']:>6.1f} {row['peak_rss_mb']:>7.0f} {row['iou']:>5.2f}"
        )
    print(json.dumps(rows, indent=1), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
