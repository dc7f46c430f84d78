"""What the container says about a recording: duration and video stream facts (PyAV).

These are the facts as *reported* (a truncated file keeps its index and so
its declared duration and frame count); the receipt sets them beside what
the run actually demuxed and decoded, which is how a short decode shows.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import av

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.segment_decode import open_video


def _rate(stream: Any) -> float | None:
    for rate in (stream.average_rate, stream.guessed_rate, stream.base_rate):
        if rate:
            value = float(rate)
            if math.isfinite(value) and value > 0:
                return round(value, 6)
    return None


def _duration(container: Any, stream: Any) -> tuple[float | None, str | None]:
    """The video stream's own duration when the container has one, else the container's."""
    if stream.duration is not None and stream.time_base is not None and stream.duration > 0:
        return round(float(stream.duration * stream.time_base), 6), "video_stream"
    if container.duration is not None and container.duration > 0:
        return round(container.duration / av.time_base, 6), "container"
    return None, None


def probe_stream(video: Path) -> dict[str, Any]:
    """``container_duration_seconds``, ``duration_source`` and ``video_stream`` of the receipt."""
    container = open_video(video)
    try:
        stream = container.streams.video[0]
        duration, source = _duration(container, stream)
        context = stream.codec_context
        return {
            "container_duration_seconds": duration,
            "duration_source": source,
            "video_stream": {
                "codec": context.name or "unknown",
                "width": int(context.width or 0),
                "height": int(context.height or 0),
                "fps": _rate(stream),
                "frame_count": int(stream.frames) if stream.frames else None,
            },
        }
    except av.FFmpegError:
        raise VideoExtractionError(
            "video_unreadable", "FFmpeg (PyAV) cannot read the video's header", str(video)
        ) from None
    finally:
        container.close()
