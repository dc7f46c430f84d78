"""Synthetic talk videos with a known slide sequence (tests and benchmarks).

Real recordings cannot ship with the repository, and the accuracy claims of
the extractor need ground truth, so tests and the benchmark render talks
here: slides (title, bullets, optional picture), laid out full screen,
beside a speaker camera or with a picture-in-picture camera, with cross-fades,
a continuously moving speaker and per-frame sensor noise. Writing goes
through OpenCV's ``mp4v`` encoder (tests) or FFmpeg's libx264 (benchmarks,
the codec of real talk uploads).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

LAYOUTS = ("fullscreen", "side_by_side", "camera_left", "pip", "open_stage")
SLIDE_BOXES = {
    "fullscreen": (0.0, 0.0, 1.0, 1.0),
    "side_by_side": (0.03, 0.12, 0.66, 0.88),
    "camera_left": (0.33, 0.1, 0.97, 0.9),
    "pip": (0.0, 0.0, 1.0, 1.0),
    "open_stage": (0.04, 0.1, 0.62, 0.9),
}
CAMERA_BOXES: dict[str, tuple[float, float, float, float] | None] = {
    "fullscreen": None,
    "side_by_side": (0.69, 0.18, 0.97, 0.82),
    "camera_left": (0.02, 0.2, 0.3, 0.8),
    "pip": (0.74, 0.68, 0.98, 0.96),
    "open_stage": None,
}
# "open_stage": the speaker is a box wandering over the stage right of the
# slides, with no camera frame around it (the layout that defeated a
# frame-contour-only detector: its motion sweeps a large, unframed area).
STAGE_AREAS = {"open_stage": (0.66, 0.05, 0.98, 0.95)}
PALETTE = [
    (245, 245, 245),
    (250, 235, 215),
    (225, 240, 250),
    (230, 250, 230),
    (240, 230, 250),
    (255, 250, 225),
]


@dataclass(frozen=True)
class Slide:
    """One slide design; ``key`` names it in the ground truth."""

    key: str
    title: str
    bullets: tuple[str, ...] = ()
    background: int = 0
    picture: bool = False


@dataclass(frozen=True)
class Segment:
    slide: Slide
    seconds: float


@dataclass
class TalkSpec:
    width: int = 320
    height: int = 180
    fps: float = 10.0
    layout: str = "fullscreen"
    segments: list[Segment] = field(default_factory=list)
    fade_seconds: float = 0.0
    noise_sigma: float = 0.0
    speaker: bool = True
    seed: int = 7

    def duration(self) -> float:
        return sum(segment.seconds for segment in self.segments)

    def frame_count(self) -> int:
        return round(self.duration() * self.fps)

    def slide_box(self) -> tuple[float, float, float, float]:
        return SLIDE_BOXES[self.layout]


def expected_sequence(spec: TalkSpec) -> list[str]:
    """Ground truth: slide keys in order, consecutive repeats collapsed."""
    keys: list[str] = []
    for segment in spec.segments:
        if not keys or keys[-1] != segment.slide.key:
            keys.append(segment.slide.key)
    return keys


def label_at(spec: TalkSpec, seconds: float) -> tuple[str, bool]:
    """The slide on screen at ``seconds`` and whether a fade is in progress."""
    start = 0.0
    for index, segment in enumerate(spec.segments):
        end = start + segment.seconds
        if seconds < end or index == len(spec.segments) - 1:
            fading = index > 0 and spec.fade_seconds > 0 and seconds < start + spec.fade_seconds
            return segment.slide.key, fading
        start = end
    raise AssertionError("unreachable")


def _px(
    box: tuple[float, float, float, float], width: int, height: int
) -> tuple[int, int, int, int]:
    return (
        round(box[0] * width),
        round(box[1] * height),
        round(box[2] * width),
        round(box[3] * height),
    )


def render_slide(slide: Slide, width: int, height: int) -> np.ndarray:
    """A slide image of the given size: title, bullets, optional picture."""
    colour = PALETTE[slide.background % len(PALETTE)]
    image = np.empty((height, width, 3), np.uint8)
    image[:] = colour
    scale = height / 360.0
    thickness = max(1, round(2 * scale))
    cv2.rectangle(image, (0, 0), (width, int(50 * scale)), tuple(int(c * 0.55) for c in colour), -1)
    cv2.putText(
        image,
        slide.title,
        (int(16 * scale), int(36 * scale)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.9 * scale,
        (255, 255, 255),
        thickness,
        cv2.LINE_AA,
    )
    if slide.picture:
        x0, y0 = int(width * 0.6), int(height * 0.25)
        cv2.rectangle(image, (x0, y0), (int(width * 0.95), int(height * 0.85)), (70, 110, 160), -1)
        cv2.circle(
            image, (int(width * 0.78), int(height * 0.5)), int(height * 0.12), (40, 180, 240), -1
        )
    for row, bullet in enumerate(slide.bullets):
        y = int((90 + 44 * row) * scale)
        cv2.circle(
            image, (int(24 * scale), y - int(7 * scale)), max(2, int(5 * scale)), (30, 30, 30), -1
        )
        cv2.putText(
            image,
            bullet,
            (int(40 * scale), y),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7 * scale,
            (25, 25, 25),
            thickness,
            cv2.LINE_AA,
        )
    return image


class _Renderer:
    def __init__(self, spec: TalkSpec) -> None:
        if spec.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {spec.layout}")
        self.spec = spec
        width, height = spec.width, spec.height
        self.stage = np.empty((height, width, 3), np.uint8)
        self.stage[:] = (24, 20, 18)
        self.slide_px = _px(spec.slide_box(), width, height)
        camera = CAMERA_BOXES[spec.layout]
        self.camera_px = _px(camera, width, height) if camera else None
        self.bases: dict[str, np.ndarray] = {}
        rng = np.random.default_rng(spec.seed)
        self.noise = (
            [
                rng.normal(0.0, spec.noise_sigma, (height, width, 3)).astype(np.int16)
                for _ in range(7)
            ]
            if spec.noise_sigma > 0
            else []
        )

    def base(self, slide: Slide) -> np.ndarray:
        cached = self.bases.get(slide.key)
        if cached is None:
            frame = self.stage.copy()
            x0, y0, x1, y1 = self.slide_px
            frame[y0:y1, x0:x1] = render_slide(slide, x1 - x0, y1 - y0)
            if self.camera_px is not None:
                cx0, cy0, cx1, cy1 = self.camera_px
                frame[cy0:cy1, cx0:cx1] = (72, 66, 60)
                cv2.rectangle(frame, (cx0, cy0), (cx1 - 1, cy1 - 1), (120, 120, 120), 1)
            cached = frame
            self.bases[slide.key] = cached
        return cached

    def speaker(self, frame: np.ndarray, seconds: float) -> None:
        """A speaker who never stops moving, drawn inside (and clipped to) the camera box."""
        if not self.spec.speaker:
            return
        width, height = self.spec.width, self.spec.height
        stage = STAGE_AREAS.get(self.spec.layout)
        if stage is not None:
            self.wandering_box(frame, seconds, _px(stage, width, height))
            return
        if self.camera_px is not None:
            x0, y0, x1, y1 = self.camera_px
        else:
            x0, y0, x1, y1 = int(width * 0.72), int(height * 0.35), width, height
        view = frame[y0:y1, x0:x1]
        span, tall = x1 - x0, y1 - y0
        centre_x = span // 2 + int(span * 0.28 * math.sin(seconds * 1.7))
        head_r = max(3, tall // 9)
        head_y = tall // 3 + int(head_r * 0.4 * math.sin(seconds * 3.1))
        body = (max(3, span // 6), max(4, tall // 3))
        cv2.ellipse(view, (centre_x, head_y + head_r + body[1]), body, 0, 0, 360, (60, 90, 170), -1)
        cv2.circle(view, (centre_x, head_y), head_r, (150, 180, 220), -1)
        arm = int(span * 0.25 * math.sin(seconds * 2.3))
        cv2.line(
            view,
            (centre_x, head_y + 2 * head_r),
            (centre_x + arm + body[0], head_y + head_r),
            (150, 180, 220),
            max(1, head_r // 2),
        )

    @staticmethod
    def wandering_box(frame: np.ndarray, seconds: float, area: tuple[int, int, int, int]) -> None:
        """A bright box (a person lit on stage) drifting over ``area`` on two incommensurate
        frequencies, so that it covers the whole area over time but is never still."""
        x0, y0, x1, y1 = area
        box_w, box_h = max(4, (x1 - x0) * 2 // 5), max(6, (y1 - y0) * 2 // 5)
        left = x0 + int((x1 - x0 - box_w) * (0.5 + 0.5 * math.sin(seconds * 1.3)))
        top = y0 + int((y1 - y0 - box_h) * (0.5 + 0.5 * math.sin(seconds * 0.9 + 1.0)))
        cv2.rectangle(frame, (left, top), (left + box_w, top + box_h), (90, 150, 210), -1)
        cv2.circle(
            frame,
            (left + box_w // 2, top + box_h // 4),
            max(2, box_w // 5),
            (200, 215, 235),
            -1,
        )

    def frames(self) -> Iterator[np.ndarray]:
        spec = self.spec
        total = spec.frame_count()
        starts = []
        start = 0.0
        for segment in spec.segments:
            starts.append(start)
            start += segment.seconds
        segment_index = 0
        for number in range(total):
            seconds = number / spec.fps
            while segment_index + 1 < len(spec.segments) and seconds >= starts[segment_index + 1]:
                segment_index += 1
            current = self.base(spec.segments[segment_index].slide)
            into = seconds - starts[segment_index]
            if segment_index > 0 and spec.fade_seconds > 0 and into < spec.fade_seconds:
                previous = self.base(spec.segments[segment_index - 1].slide)
                alpha = into / spec.fade_seconds
                frame = cv2.addWeighted(current, alpha, previous, 1.0 - alpha, 0.0)
            else:
                frame = current.copy()
            self.speaker(frame, seconds)
            if self.noise:
                noisy = frame.astype(np.int16) + self.noise[number % len(self.noise)]
                frame = np.clip(noisy, 0, 255).astype(np.uint8)
            yield frame


def write_mp4v(spec: TalkSpec, path: Path) -> Path:
    """Render with OpenCV's MPEG-4 Part 2 encoder (lossy: real compression noise)."""
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"mp4v"), spec.fps, (spec.width, spec.height)
    )
    if not writer.isOpened():
        raise RuntimeError("OpenCV cannot open an mp4v writer")
    try:
        for frame in _Renderer(spec).frames():
            writer.write(frame)
    finally:
        writer.release()
    return path


def write_h264(spec: TalkSpec, path: Path, *, crf: int = 23, preset: str = "veryfast") -> Path:
    """Render with FFmpeg's libx264 (OpenCV's wheels ship no H.264 encoder)."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is required to write H.264")
    command: Sequence[str] = [
        ffmpeg,
        "-y",
        "-loglevel",
        "error",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "bgr24",
        "-s",
        f"{spec.width}x{spec.height}",
        "-r",
        f"{spec.fps:g}",
        "-i",
        "-",
        "-c:v",
        "libx264",
        "-preset",
        preset,
        "-crf",
        str(crf),
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        str(path),
    ]
    process = subprocess.Popen(command, stdin=subprocess.PIPE)
    assert process.stdin is not None
    try:
        for frame in _Renderer(spec).frames():
            process.stdin.write(frame.tobytes())
    finally:
        process.stdin.close()
        code = process.wait()
    if code != 0:
        raise RuntimeError(f"ffmpeg exited with {code}")
    return path


def distinct_slides(count: int, prefix: str = "S") -> list[Slide]:
    """Slides with different backgrounds, titles and bullets (every other one with a picture)."""
    return [
        Slide(
            f"{prefix}{index}",
            f"Topic number {index}",
            tuple(f"point {index}.{row} here" for row in range(3)),
            background=index,
            picture=index % 2 == 0,
        )
        for index in range(count)
    ]


def timeline(slides: Sequence[Slide], seconds: float = 2.5) -> list[Segment]:
    """Each slide on screen for ``seconds``."""
    return [Segment(slide, seconds) for slide in slides]


def remux_faststart(source: Path, target: Path) -> Path:
    """Copy ``source``'s video packets into an MP4 with its index (moov) first, as yt-dlp's are.

    OpenCV's writer puts the index last, so a file cut short loses it and no
    longer opens at all; with the index first a cut file still opens and
    declares its full duration, which is the truncation a reader must catch.
    PyAV is the video-extraction owner's own dependency, imported here lazily.
    """
    import av

    with (
        av.open(str(source)) as reader,
        av.open(str(target), "w", options={"movflags": "faststart"}) as writer,
    ):
        stream = reader.streams.video[0]
        out = writer.add_stream_from_template(stream)
        for packet in reader.demux(stream):
            if packet.dts is None:
                continue  # the demuxer's flush packet
            packet.stream = out
            writer.mux(packet)
    return target


def truncated_copy(source: Path, target: Path, fraction: float) -> Path:
    """The first ``fraction`` of ``source``'s bytes (a download or copy cut short)."""
    data = source.read_bytes()
    target.write_bytes(data[: int(len(data) * fraction)])
    return target
