"""Sampling a talk video while decoding as little of it as the answer allows.

The answer needs one frame per half sampling interval, not every frame. The
video is demuxed twice: first for the packet index (times, sizes, keyframe
flags; no decoding, a few milliseconds), from which ``decode_plan`` decides
per GOP whether to skip it or decode it up to the last frame a sub-sample
needs; then for decoding exactly those packets with PyAV. Inside decoded
GOPs the decoder skips B-frames (``skip_frame = BIDIR`` when a both-ways
check shows no I/P frame depends on them, as with x264, else ``NONREF``:
only the B-frames nothing refers to). The planned GOPs are decoded in a few
contiguous segments on parallel decoders (``segment_decode``); a sub-sample
takes the latest decoded frame of its own GOP at or before its time (at most
a few frames early). The thumbnail and the JPEG of a sample are computed
once per decoded frame even when two sub-samples fall on the same one, the
JPEG beside the decoder (``frame_sink``).

Sub-sampling: besides the nominal samples at ``k / fps`` seconds we take one
"half" sample at ``(k + 0.5) / fps``. The merged sequence has a frame every
half interval, so any slide that is stable on screen for at least one
sampling interval contains two consecutive members of that sequence, one of
which is a nominal sample (see ``dedupe``). Halves are kept as thumbnails
only; nominal samples are also written as intermediate JPEGs (full
resolution) because the page images come from them. ``sources`` records
which decoded frame each sub-sample is, so that the motion statistics never
count a frame compared with itself as "no motion".
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np

from rvault_video_extraction.decode_plan import (
    FULL,
    SKIP,
    DecodePlan,
    Packet,
    has_b_frames,
    plan_decoding,
)
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.frame_sink import SubSamples
from rvault_video_extraction.segment_decode import Timing, decode_segments, open_video


@dataclass(kw_only=True)
class SampledVideo(SubSamples):
    """Everything the analysis needs from the decode pass: the sub-samples and the run."""

    video_fps: float
    fps_used: float
    packets_total: int = 0
    gop_treatments: dict[str, int] = field(default_factory=dict)
    skip_frame: str = "NONREF"
    demuxed_end_seconds: float = 0.0
    """End of the last packet the demuxer returned (a cut file stops short of its index)."""

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

    def decoded_span_seconds(self) -> tuple[float, float]:
        """Times of the first and last decoded frames that serve a sub-sample."""
        if not self.sources:
            return 0.0, 0.0
        return min(self.sources) / self.video_fps, max(self.sources) / self.video_fps

    def sequence_sources(self) -> list[int]:
        """Decoded-frame identity of each member of :meth:`sequence` (same order)."""
        if len(self.sources) == len(self.samples) + len(self.halves):
            return list(self.sources)
        return list(range(len(self.samples) + len(self.halves)))


def sub_sample_frame(index: int, video_fps: float, fps: float) -> int:
    """Frame number of sub-sample ``index`` (even = nominal sample index/2)."""
    return math.floor(index * video_fps / (2.0 * fps) + 0.5)


def _frame_rate(stream: Any) -> float:
    for rate in (stream.average_rate, stream.guessed_rate, stream.base_rate):
        if rate:
            value = float(rate)
            if math.isfinite(value) and value > 0:
                return value
    return 0.0


def index_packets(video: Path) -> tuple[list[Packet], Timing]:
    """Demux without decoding: packets in decode order, and how their times are computed."""
    container = open_video(video)
    try:
        stream = container.streams.video[0]
        rate = _frame_rate(stream)
        base = stream.time_base or Fraction(1, 90000)
        packets: list[Packet] = []
        origin: int | None = stream.start_time
        raw: list[tuple[int, int, bool]] = []
        for packet in container.demux(stream):
            if packet.size == 0:
                continue  # the demuxer's end-of-stream marker, not a frame
            # Containers without presentation times (raw streams, some AVIs) give the
            # decode time; failing both, the packet keeps its predecessor's time.
            stamp = packet.pts if packet.pts is not None else packet.dts
            if stamp is None:
                stamp = raw[-1][0] if raw else 0
            raw.append((stamp, packet.size, bool(packet.is_keyframe)))
        if raw and origin is None:
            origin = min(pts for pts, _, _ in raw)
        timing = Timing(rate, base, origin or 0)
        for pts, size, keyframe in raw:
            packets.append(Packet(timing.seconds(pts), size, keyframe))
        return packets, timing
    except av.FFmpegError:
        raise VideoExtractionError(
            "video_decode_failed", "the video cannot be demuxed", str(video)
        ) from None
    finally:
        container.close()


CHECK_PACKETS = 64


def _decode_prefix(video: Path, start: int, stop: int, skip: str) -> dict[int, bytes]:
    """Frames (pts -> SHA-256 of the raw planes) of packets ``start..stop`` decoded with ``skip``.

    Digests, not the planes: 64 packets of 720p are about 90 MB of pixels,
    and the two decodes compared used to be the run's peak memory.
    """
    container = open_video(video)
    frames: dict[int, bytes] = {}
    try:
        stream = container.streams.video[0]
        stream.codec_context.skip_frame = skip
        position = 0
        for packet in container.demux(stream):
            if packet.size == 0:
                continue
            position += 1
            if position - 1 < start:
                continue
            if position - 1 >= stop:
                break
            for frame in stream.codec_context.decode(packet):
                if frame.pts is not None:
                    frames[frame.pts] = _planes_digest(frame)
        for frame in stream.codec_context.decode(None):
            if frame.pts is not None:
                frames[frame.pts] = _planes_digest(frame)
    finally:
        container.close()
    return frames


def _planes_digest(frame: Any) -> bytes:
    return hashlib.sha256(frame.to_ndarray()).digest()


def discard_level(video: Path, packets: list[Packet], plan: DecodePlan) -> str:
    """``BIDIR`` (skip every B-frame) when that provably loses no anchor, else ``NONREF``.

    With b-pyramid some B-frames are references. x264 only lets other
    B-frames refer to them, so every I/P frame decodes the same without any
    B-frame, and skipping them all halves the work again. An encoder whose
    P-frames refer to B-frames would get corrupted anchors, so the first
    decoded GOP is decoded both ways (up to ``CHECK_PACKETS`` packets, a few
    percent of a talk) and ``BIDIR`` is used only if the anchors agree byte
    for byte (their SHA-256 digests agree).
    """
    if not has_b_frames(packets):
        return "NONREF"
    probe = next((g for g in plan.gops if g.treatment == FULL and g.feed_end - g.start >= 8), None)
    if probe is None:
        return "NONREF"
    stop = min(probe.feed_end, probe.start + CHECK_PACKETS)
    anchors = _decode_prefix(video, probe.start, stop, "BIDIR")
    reference = _decode_prefix(video, probe.start, stop, "NONREF")
    shared = anchors.keys() & reference.keys()
    exact = len(shared) >= 2 and all(anchors[pts] == reference[pts] for pts in shared)
    return "BIDIR" if exact else "NONREF"


def sample_video(
    video: Path,
    fps: float,
    frames_dir: Path,
    progress: Callable[[str], None] | None = None,
) -> SampledVideo:
    """Collect samples at ``fps`` (plus halves), decoding only what the plan needs.

    Raises ``VideoExtractionError`` with ``video_unreadable``,
    ``video_no_frame_rate``, ``fps_exceeds_video_rate``, ``video_no_frames``,
    ``video_decode_failed`` or ``io_error``.
    """
    packets, timing = index_packets(video)
    video_fps = timing.video_fps
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
    if not packets:
        raise VideoExtractionError(
            "video_no_frames", "the video has no decodable frames", str(video)
        )
    last_frame = max(round(packet.time * video_fps) for packet in packets)
    targets: list[int] = []
    while (frame_number := sub_sample_frame(len(targets), video_fps, fps)) <= last_frame:
        targets.append(frame_number)
    tolerance = 0.5 / video_fps
    plan = plan_decoding(packets, [number / video_fps for number in targets], tolerance)
    result = SampledVideo(
        video_fps=video_fps,
        fps_used=fps,
        packets_total=len(packets),
        demuxed_end_seconds=(last_frame + 1) / video_fps,
        gop_treatments={name: plan.count(name) for name in (SKIP, FULL)},
    )
    started = time.monotonic()
    try:
        skip = discard_level(video, packets, plan)
    except av.FFmpegError:
        skip = "NONREF"
    result.skip_frame = skip
    for part in decode_segments(video, packets, plan, targets, timing, frames_dir, skip, progress):
        result.extend(part)
    if not result.samples:
        raise VideoExtractionError(
            "video_no_frames", "the video has no decodable frames", str(video)
        )
    if progress is not None:
        treatments = result.gop_treatments
        progress(
            f"decoded {result.frames_decoded} of {len(packets)} frames "
            f"(GOPs: {treatments[FULL]} decoded up to their last sub-sample, "
            f"{treatments[SKIP]} skipped; skip_frame {result.skip_frame}), "
            f"{len(result.samples)} samples "
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
