"""From decoded frames to sub-samples: thumbnails now, page JPEGs beside the decoder.

Every sub-sample needs a grayscale thumbnail; only nominal samples need a
full-resolution JPEG (the page images come from them), and most of those are
dropped later as repeats. Two things keep this off the decoder's path:

* The thumbnail of a 4:2:0 frame is taken from its luma plane, mapped from
  the video range (16..235) to full range: the grey value OpenCV's BGR
  conversion followed by ``BGR2GRAY`` gives, within one or two levels, at a
  fraction of the cost, and without converting frames that are halves only.
* The colour conversion, JPEG encoding and writing of a nominal sample run
  on one background thread while the main thread keeps decoding (PyAV and
  OpenCV both release the GIL), with at most ``IN_FLIGHT`` frames queued so
  memory stays bounded. A failed write surfaces as the same ``io_error`` /
  ``jpeg_encode_failed`` refusal, and :meth:`SampleSink.close` always waits
  for the thread so that no file appears after the run has cleaned up.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rvault_video_extraction.errors import VideoExtractionError

THUMB_WIDTH = 320
JPEG_QUALITY = 92
IN_FLIGHT = 4
NO_SPACE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}

# Video-range luma (16 black, 235 white) to the full-range grey of BGR2GRAY.
_VIDEO_TO_FULL_RANGE = np.clip(np.round((np.arange(256) - 16) * 255 / 219), 0, 255).astype(np.uint8)


@dataclass
class SubSamples:
    """What a sink fills in: the sub-samples of a run of targets, in target order.

    One segment's decoder fills one; ``sampling.SampledVideo`` extends it
    with the run's facts and appends the segments' in order.
    """

    width: int = 0
    height: int = 0
    frames_decoded: int = 0
    samples: list[np.ndarray] = field(default_factory=list)
    halves: list[np.ndarray] = field(default_factory=list)
    frame_paths: list[Path] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)

    def extend(self, other: SubSamples) -> None:
        """Append ``other``'s sub-samples (which come after these) and frame count."""
        if not self.width and other.width:
            self.width, self.height = other.width, other.height
        self.frames_decoded += other.frames_decoded
        self.samples += other.samples
        self.halves += other.halves
        self.frame_paths += other.frame_paths
        self.sources += other.sources


def io_failure(exc: OSError, what: str, path: Path | str) -> VideoExtractionError:
    """A failed write as a refusal: a full disk or quota is ``io_error`` (exit 2), not a crash."""
    reason = "no space left on the device" if exc.errno in NO_SPACE_ERRNOS else exc.strerror
    return VideoExtractionError("io_error", f"cannot write {what}: {reason or exc}", str(path))


def _shrink(gray: np.ndarray) -> np.ndarray:
    height, width = gray.shape
    if width > THUMB_WIDTH:
        new_height = max(1, round(height * THUMB_WIDTH / width))
        gray = cv2.resize(gray, (THUMB_WIDTH, new_height), interpolation=cv2.INTER_AREA)
    return gray


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """Grayscale thumbnail of BGR pixels, THUMB_WIDTH wide (never upscaled).

    INTER_AREA averages blocks of pixels and a small Gaussian blur follows,
    which together suppress compression and sensor noise while keeping lines
    of slide text visible as blobs.
    """
    return cv2.GaussianBlur(_shrink(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)), (5, 5), 0)


def _is_i420(frame: Any) -> bool:
    return frame.format.name == "yuv420p" and frame.width % 2 == 0 and frame.height % 2 == 0


def to_bgr(frame: Any) -> np.ndarray:
    """A decoded frame as BGR pixels.

    For the usual 4:2:0 frames the planes are taken as they are and OpenCV's
    vectorised I420 conversion is used: about 4x faster than PyAV's own
    ``bgr24`` reformat (libswscale), which was a fifth of the sampling time.
    """
    if _is_i420(frame):
        return cv2.cvtColor(frame.to_ndarray(), cv2.COLOR_YUV2BGR_I420)
    return frame.to_ndarray(format="bgr24")


def frame_thumbnail(frame: Any) -> np.ndarray:
    """:func:`thumbnail` of a decoded frame, from its luma plane when it is I420."""
    if not _is_i420(frame):
        return thumbnail(to_bgr(frame))
    plane = frame.planes[0]
    rows = np.frombuffer(plane, np.uint8, count=plane.line_size * frame.height)
    luma = rows.reshape(frame.height, plane.line_size)[:, : frame.width]
    small = cv2.LUT(_shrink(luma), _VIDEO_TO_FULL_RANGE)
    return cv2.GaussianBlur(small, (5, 5), 0)


def write_page_jpeg(frame: Any, path: Path) -> None:
    """Encode one nominal sample at full resolution; the file is new (``xb``)."""
    ok, encoded = cv2.imencode(".jpg", to_bgr(frame), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise VideoExtractionError("jpeg_encode_failed", "a sample could not be encoded", str(path))
    try:
        with open(path, "xb") as handle:
            handle.write(encoded.tobytes())
    except OSError as exc:
        raise io_failure(exc, "an intermediate frame", path) from None


class SampleSink:
    """Turns decoded frames into sub-samples: thumbnails, JPEGs, sources.

    ``take`` is called once per sub-sample with the decoded frame serving it;
    two sub-samples on the same frame share its thumbnail and JPEG. Use as a
    context manager: leaving it waits for every queued JPEG and raises the
    first failure (unless another exception is already on its way).
    """

    def __init__(
        self,
        result: SubSamples,
        frames_dir: Path,
        write: Callable[[Any, Path], None] = write_page_jpeg,
    ) -> None:
        self.result = result
        self.frames_dir = frames_dir
        self.write = write
        self.source: int | None = None
        self.thumb: np.ndarray | None = None
        self.path: Path | None = None
        self.frame: Any = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rvault-jpeg")
        self._slots = threading.BoundedSemaphore(IN_FLIGHT)
        self._pending: list[Future[None]] = []

    def __enter__(self) -> SampleSink:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self.close(raise_failure=kind is None)

    def take(self, index: int, frame: Any, source: int) -> None:
        if source != self.source:
            self.source, self.path, self.frame = source, None, frame
            self.thumb = frame_thumbnail(frame)
            if not self.result.width:
                self.result.height, self.result.width = frame.height, frame.width
        assert self.thumb is not None
        self.result.sources.append(source)
        if index % 2:
            self.result.halves.append(self.thumb)
            return
        if self.path is None:
            self.path = self.frames_dir / f"sample-{index // 2:06d}.jpg"
            self._submit(self.frame, self.path)
        self.result.frame_paths.append(self.path)
        self.result.samples.append(self.thumb)

    def _submit(self, frame: Any, path: Path) -> None:
        self._raise_done_failure()
        self._slots.acquire()
        try:
            future = self._pool.submit(self.write, frame, path)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        self._pending.append(future)

    def _raise_done_failure(self) -> None:
        for future in self._pending:
            if future.done() and future.exception() is not None:
                raise future.exception()  # type: ignore[misc]

    def close(self, raise_failure: bool = True) -> None:
        """Wait for every queued JPEG; raise the first failure when asked."""
        self._pool.shutdown(wait=True)
        if raise_failure:
            for future in self._pending:
                failure = future.exception()
                if failure is not None:
                    raise failure
