"""Decoding the plan in contiguous GOP segments, one decoder thread each.

GOPs decode independently, so the planned GOPs are split into a few
contiguous segments with similar work (``DecodePlan.segments``), each
decoded by its own single-threaded decoder on its own thread (PyAV releases
the GIL while decoding). Measured on the 720p H.264 benchmark talk, two
single-threaded decoders on two GOP halves spent about a fifth less CPU than
one frame-threaded decoder on the whole plan, and finished in half its wall
time on an idle 2-core machine.

Which frame serves which sub-sample must not depend on how many segments
there are, so the rule is local to a GOP: a target gets the latest decoded
frame *of its own GOP* at or before its time, else that GOP's first decoded
frame (the decoder only ever runs late by a rounding of half a frame).
Frames are assigned to GOPs by their presentation time against the GOPs'
keyframe times, not by when the decoder returns them, so frame threading
and reordering delays change nothing. A frame shown after everything fed of
its GOP is a leading picture of the next, open GOP (decoded or not depending
on where a segment starts) and is never used. Only a GOP that yields no frame at all
(a damaged stream) borrows the nearest earlier frame of its segment, or the
nearest later one; a segment that yields none is ``video_decode_failed``.
"""

from __future__ import annotations

import bisect
import ctypes
import math
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av

from rvault_video_extraction.decode_plan import FULL, DecodePlan, Packet
from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.frame_sink import SampleSink, SubSamples

MAX_SEGMENTS = 4
MIN_SEGMENT_PACKETS = 96
PROGRESS_INTERVAL_S = 2.0


def open_video(video: Path) -> Any:
    """A PyAV container with a video stream, or ``video_unreadable``."""
    try:
        container = av.open(str(video), mode="r")
    except (av.FFmpegError, OSError, ValueError):
        raise VideoExtractionError(
            "video_unreadable", "FFmpeg (PyAV) cannot open the video", str(video)
        ) from None
    if not container.streams.video:
        container.close()
        raise VideoExtractionError("video_unreadable", "the file has no video stream", str(video))
    return container


@dataclass(frozen=True)
class Timing:
    """How decoded frames are placed: frame rate, time base and the index's origin."""

    video_fps: float
    base: Fraction
    origin: int

    def seconds(self, pts: int) -> float:
        # Integer true division is correctly rounded: the same float as
        # float((pts - origin) * base), without building a Fraction per frame.
        return (pts - self.origin) * self.base.numerator / self.base.denominator


class _GopServer:
    """Hands each target of a segment the frame the GOP-local rule picks."""

    def __init__(self, job: _Job, span: tuple[int, int]) -> None:
        self.gops = job.plan.gops[span[0] : span[1]]
        self.starts = job.starts[span[0] : span[1]]
        self.limits = job.limits[span[0] : span[1]]
        self.targets = job.targets
        self.pending = self.gops[0].targets[0]
        self.end = self.gops[-1].targets[1]
        self.current = -1
        self.previous: tuple[Any, int] | None = None

    def frame(self, frame: Any, seconds: float, number: int, take: Callable) -> None:
        gop = max(0, bisect.bisect_right(self.starts, seconds) - 1)
        if seconds > self.limits[gop]:
            # Shown before the next keyframe but later than anything fed of this GOP:
            # a leading picture of the next (open) GOP, which only a decoder that was
            # also fed this GOP returns. With intact keyframes it could never serve a
            # target anyway; ignoring it keeps that true when a keyframe is damaged.
            return
        if gop != self.current:
            # Targets of earlier GOPs still unserved yielded no frame of their own.
            self._serve_until(self.gops[gop].targets[0], self.previous or (frame, number), take)
            self.current, self.previous = gop, None
        if self.previous is not None and number <= self.previous[1]:
            return
        last = self.gops[gop].targets[1]
        while self.pending < last and self.previous is not None:
            if self.targets[self.pending] >= number:
                break
            take(self.pending, *self.previous)
            self.pending += 1
        self.previous = (frame, number)

    def finish(self, take: Callable) -> bool:
        """Serve what is left with the segment's last frame; False when it had none."""
        if self.previous is None:
            return self.pending >= self.end
        self._serve_until(self.end, self.previous, take)
        return True

    def _serve_until(self, limit: int, source: tuple[Any, int], take: Callable) -> None:
        while self.pending < limit:
            take(self.pending, *source)
            self.pending += 1


def progress_line(sent: int, to_feed: int, total: int, elapsed: float) -> str:
    """``decoded 128/130 planned packets of 140, ETA 0m01s``."""
    eta = (to_feed - sent) * elapsed / sent if sent else 0.0
    seconds = max(0, int(eta))
    return (
        f"decoded {sent}/{to_feed} planned packets of {total}, "
        f"ETA {seconds // 60}m{seconds % 60:02d}s"
    )


def segment_count(plan: DecodePlan) -> int:
    """Segments for this machine: one per core (at most ``MAX_SEGMENTS``), none tiny."""
    work = sum(gop.feed_end - gop.start for gop in plan.gops if gop.treatment == FULL)
    by_size = max(1, work // MIN_SEGMENT_PACKETS)
    return max(1, min(MAX_SEGMENTS, usable_cores(), by_size))


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class _Job:
    """What every segment's decoder shares."""

    video: Path
    plan: DecodePlan
    starts: list[float]  # keyframe time of each GOP (-inf for the first)
    limits: list[float]  # latest time among each GOP's fed packets (-inf if none)
    targets: list[int]
    fed: list[bool]
    timing: Timing
    frames_dir: Path
    skip: str
    threaded: bool
    sent: list[int]  # packets fed so far, per segment (progress)
    cancel: threading.Event


def _decode_segment(job: _Job, span: tuple[int, int], slot: int) -> SubSamples:
    partial = SubSamples()
    server = _GopServer(job, span)
    first, end = job.plan.gops[span[0]].start, job.plan.gops[span[1] - 1].end
    timing = job.timing
    container = open_video(job.video)
    try:
        stream = container.streams.video[0]
        if job.threaded:
            stream.thread_type = "AUTO"
        stream.codec_context.skip_frame = job.skip
        with SampleSink(partial, job.frames_dir) as sink:

            def serve(frame: Any) -> None:
                partial.frames_decoded += 1
                seconds = timing.seconds(frame.pts)
                server.frame(frame, seconds, round(seconds * timing.video_fps), sink.take)

            position = -1
            for packet in container.demux(stream):
                if packet.size == 0:
                    continue  # same packets, same order as the index
                position += 1
                if position >= end or job.cancel.is_set():
                    break
                if position < first or not job.fed[position]:
                    continue
                job.sent[slot] += 1
                for frame in stream.codec_context.decode(packet):
                    if frame.pts is not None:
                        serve(frame)
            if job.cancel.is_set():
                return partial  # another segment failed; its error is the one raised
            for frame in stream.codec_context.decode(None):
                if frame.pts is not None:
                    serve(frame)
            if not server.finish(sink.take):
                raise VideoExtractionError(
                    "video_decode_failed",
                    f"no frame decodes between packets {first} and {end}",
                    str(job.video),
                )
    except av.FFmpegError as exc:
        raise VideoExtractionError(
            "video_decode_failed", f"decoding failed: {exc}", str(job.video)
        ) from None
    finally:
        container.close()
    return partial


def decode_segments(
    video: Path,
    packets: list[Packet],
    plan: DecodePlan,
    targets: list[int],
    timing: Timing,
    frames_dir: Path,
    skip: str,
    progress: Callable[[str], None] | None = None,
) -> list[SubSamples]:
    """Every target's sub-sample, as per-segment partials in target order."""
    spans = plan.segments(segment_count(plan))
    fed = plan.fed()
    job = _Job(
        video=video,
        plan=plan,
        starts=[packets[g.start].time if n else -math.inf for n, g in enumerate(plan.gops)],
        limits=[
            max((packets[i].time for i in range(g.start, g.feed_end)), default=-math.inf)
            for g in plan.gops
        ],
        targets=targets,
        fed=fed,
        timing=timing,
        frames_dir=frames_dir,
        skip=skip,
        threaded=len(spans) == 1,
        sent=[0] * len(spans),
        cancel=threading.Event(),
    )
    to_feed = sum(fed)
    if progress is not None:
        progress(f"decoding {to_feed} of {len(packets)} packets in {len(spans)} segment(s)")
    started = time.monotonic()
    with ThreadPoolExecutor(len(spans), thread_name_prefix="rvault-decode") as pool:
        futures = [pool.submit(_decode_segment, job, span, slot) for slot, span in enumerate(spans)]
        try:
            while True:
                done, running = wait(futures, PROGRESS_INTERVAL_S, FIRST_EXCEPTION)
                if not running or any(future.exception() for future in done):
                    break
                if progress is not None:
                    elapsed = time.monotonic() - started
                    progress(progress_line(sum(job.sent), to_feed, len(packets), elapsed))
        finally:
            job.cancel.set()  # stops the others early when one failed or on an interrupt
    return_freed_memory()
    return [future.result() for future in futures]


def return_freed_memory() -> None:
    """Give the decoders' freed buffers back to the system (glibc only).

    Each decoder and JPEG thread allocates its frames in its own malloc
    arena, and glibc keeps what they free there: on the 3-minute 720p
    benchmark talk about 30 MB that nothing uses stayed resident through the
    analysis, the PDFs and the contact sheet, whose own buffers came on top.
    ``malloc_trim`` hands the free pages of every arena back; elsewhere
    (no glibc) this does nothing.
    """
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return
    trim(0)
