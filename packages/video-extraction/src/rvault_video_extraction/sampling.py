"""One sequential decode pass that samples a talk video.

Decoding strategy (why sequential ``grab``/``retrieve``): H.264 frames depend
on their predecessors, so any method that is guaranteed to see every slide
must decode every frame; seeking re-decodes from the previous keyframe for
each sample and keyframe skipping misses slides between keyframes. OpenCV's
FFmpeg backend splits the two halves of the work: ``grab()`` decodes a frame
into the codec's own buffer (the irreducible cost, the "decode floor"),
``retrieve()`` converts that buffer to BGR. We ``grab()`` every frame and
``retrieve()`` only the sampled ones, so extraction costs one full decode plus
a colour conversion per sample.

Sub-sampling: besides the nominal samples at ``k / fps`` seconds we retrieve
one "half" sample at ``(k + 0.5) / fps``. The merged sequence has a frame
every half interval, so any slide that is stable on screen for at least one
sampling interval contains two consecutive members of that sequence, one of
which is a nominal sample (see ``dedupe``). Halves are kept as thumbnails
only; nominal samples are also written as intermediate JPEGs (full
resolution) because the page images come from them.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from rvault_video_extraction.errors import VideoExtractionError

THUMB_WIDTH = 320
JPEG_QUALITY = 92
PROGRESS_INTERVAL_S = 2.0


@dataclass
class SampledVideo:
    """Everything the analysis needs from the decode pass."""

    width: int
    height: int
    video_fps: float
    fps_used: float
    frames_decoded: int
    samples: list[np.ndarray] = field(default_factory=list)
    halves: list[np.ndarray] = field(default_factory=list)
    frame_paths: list[Path] = field(default_factory=list)

    @property
    def sample_count(self) -> int:
        return len(self.samples)

    def sequence(self) -> list[np.ndarray]:
        """Samples and halves interleaved in time order."""
        merged: list[np.ndarray] = []
        for index, sample in enumerate(self.samples):
            merged.append(sample)
            if index < len(self.halves):
                merged.append(self.halves[index])
        return merged


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """Grayscale thumbnail, THUMB_WIDTH wide (never upscaled).

    INTER_AREA averages blocks of pixels and a small Gaussian blur follows,
    which together suppress compression and sensor noise while keeping lines
    of slide text visible as blobs.
    """
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    height, width = gray.shape
    if width > THUMB_WIDTH:
        new_height = max(1, round(height * THUMB_WIDTH / width))
        gray = cv2.resize(gray, (THUMB_WIDTH, new_height), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(gray, (5, 5), 0)


def sub_sample_frame(index: int, video_fps: float, fps: float) -> int:
    """Frame number of sub-sample ``index`` (even = nominal sample index/2)."""
    return math.floor(index * video_fps / (2.0 * fps) + 0.5)


def _format_eta(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s"


def sample_video(
    video: Path,
    fps: float,
    frames_dir: Path,
    progress: Callable[[str], None] | None = None,
) -> SampledVideo:
    """Decode ``video`` once and collect samples at ``fps`` (plus halves).

    Raises ``VideoExtractionError`` with ``video_unreadable``,
    ``video_no_frame_rate``, ``fps_exceeds_video_rate``, ``video_no_frames``
    or ``video_decode_failed``.
    """
    capture = cv2.VideoCapture(str(video), cv2.CAP_FFMPEG)
    if not capture.isOpened():
        raise VideoExtractionError("video_unreadable", "OpenCV cannot open the video", str(video))
    try:
        video_fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
        if not math.isfinite(video_fps) or video_fps <= 0:
            raise VideoExtractionError(
                "video_no_frame_rate", "the video reports no frame rate", str(video)
            )
        if fps * 2.0 > video_fps:
            raise VideoExtractionError(
                "fps_exceeds_video_rate",
                f"--fps {fps} needs at least {2 * fps} video frames per second; "
                f"the video has {video_fps:g}",
                str(video),
            )
        expected = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        result = SampledVideo(
            width=0, height=0, video_fps=video_fps, fps_used=fps, frames_decoded=0
        )
        next_index = 0
        next_frame = sub_sample_frame(0, video_fps, fps)
        frame_number = 0
        started = time.monotonic()
        last_report = started
        while capture.grab():
            if frame_number == next_frame:
                ok, frame = capture.retrieve()
                if not ok or frame is None:
                    raise VideoExtractionError(
                        "video_decode_failed",
                        f"frame {frame_number} could not be retrieved",
                        str(video),
                    )
                if not result.width:
                    result.height, result.width = frame.shape[:2]
                thumb = thumbnail(frame)
                if next_index % 2 == 0:
                    path = frames_dir / f"sample-{next_index // 2:06d}.jpg"
                    ok, encoded = cv2.imencode(
                        ".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
                    )
                    if not ok:
                        raise VideoExtractionError(
                            "jpeg_encode_failed", "a sample could not be encoded", str(path)
                        )
                    with open(path, "xb") as handle:
                        handle.write(encoded.tobytes())
                    result.frame_paths.append(path)
                    result.samples.append(thumb)
                else:
                    result.halves.append(thumb)
                next_index += 1
                next_frame = sub_sample_frame(next_index, video_fps, fps)
            frame_number += 1
            if progress is not None and frame_number % 64 == 0:
                now = time.monotonic()
                if now - last_report >= PROGRESS_INTERVAL_S:
                    last_report = now
                    rate = frame_number / max(now - started, 1e-9)
                    eta = (
                        _format_eta((expected - frame_number) / rate)
                        if expected > frame_number
                        else "unknown"
                    )
                    progress(
                        f"decoded {frame_number}/{expected or '?'} frames, "
                        f"{len(result.samples)} samples, ETA {eta}"
                    )
        result.frames_decoded = frame_number
    finally:
        capture.release()
    if not result.samples:
        raise VideoExtractionError(
            "video_no_frames", "the video has no decodable frames", str(video)
        )
    if progress is not None:
        progress(
            f"decoded {result.frames_decoded} frames, {len(result.samples)} samples "
            f"in {time.monotonic() - started:.1f}s"
        )
    return result


def remove_frames(frames_dir: Path) -> None:
    """Delete only the intermediate JPEGs of this run, then their directory.

    ``frames_dir`` is a fresh ``mkdtemp`` directory owned by one run, and only
    names this module writes (``sample-NNNNNN.jpg``) are removed; anything
    else found there is left alone (and keeps the directory).
    """
    try:
        entries = list(os.scandir(frames_dir))
    except FileNotFoundError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("sample-") and name.endswith(".jpg") and name[7:-4].isdigit():
            with contextlib.suppress(FileNotFoundError):
                Path(entry.path).unlink()
    with contextlib.suppress(OSError):
        frames_dir.rmdir()
