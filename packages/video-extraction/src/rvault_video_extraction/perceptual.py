"""Two-stage frame comparison: a 256-bit perceptual hash, then pixels.

Stage 1 is a DCT perceptual hash (pHash) of the compared region: the region
is resized to 64x64 (INTER_AREA), transformed with a 2-D DCT, and the 16x16
lowest-frequency coefficients are thresholded at their median (the DC term is
left out of the median) into 256 bits. The Hamming distance between two
hashes is compared with ``--hash-threshold``: a distance above it means the
frames are different slides without further work.

A 64-bit pHash (8x8 coefficients) with threshold 8 merges most slides that
differ only in their text on one layout, and incremental builds, because the
change is small and high-frequency. A larger hash helps, but a one-bullet
build can still stay within any useful threshold, so stage 2 looks at the
pixels of the two thumbnails directly: after removing a global brightness
offset (exposure drift), a pixel counts as changed when it moved by more than
``PIXEL_DELTA`` grey levels, which thumbnail averaging keeps compression noise
far below. Two frames differ when enough pixels changed (``min_changed``).
Pixels in the motion mask (speaker, picture-in-picture) are ignored by both
stages: they are filled with the video's median frame before hashing and
excluded from the pixel count.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import cv2
import numpy as np

HASH_SIZE = 16
HASH_INPUT = 64
PIXEL_DELTA = 28
LOW_CONTRAST_DELTA = 12
MIN_CHANGED_PIXELS = 10
MIN_CHANGED_FRACTION = 0.0004


def phash(gray: np.ndarray) -> np.ndarray:
    """256-bit DCT perceptual hash of a grayscale image, as a bool vector."""
    small = cv2.resize(gray, (HASH_INPUT, HASH_INPUT), interpolation=cv2.INTER_AREA).astype(
        np.float32
    )
    coefficients = cv2.dct(small)[:HASH_SIZE, :HASH_SIZE].flatten()
    median = float(np.median(coefficients[1:]))
    return coefficients > median


def grey_offset(difference: np.ndarray) -> int:
    """``int(np.median(difference))`` of grey-level differences, by counting.

    The differences of two 8-bit thumbnails lie in -255..255, so a 511-bin
    histogram finds the middle value(s) in one linear pass; ``np.median``
    partially sorts instead and was a tenth of a 3-minute extraction. The
    result is the same number: the mean of the two middle values for an even
    count, truncated toward zero like ``int()``.
    """
    counts = np.cumsum(np.bincount(difference + 255, minlength=511))
    size = int(counts[-1])
    upper = int(np.searchsorted(counts, size // 2 + 1)) - 255
    if size % 2:
        return upper
    lower = int(np.searchsorted(counts, size // 2)) - 255
    return int((lower + upper) / 2)


def hamming(first: np.ndarray, second: np.ndarray) -> int:
    return int(np.count_nonzero(first != second))


@dataclass(frozen=True)
class Prepared:
    """A thumbnail cropped to the compared region, masked, and hashed."""

    pixels: np.ndarray
    bits: np.ndarray


@dataclass(frozen=True)
class Verdict:
    hash_distance: int
    changed_pixels: int
    distinct: bool


class FrameComparator:
    """Compares thumbnails inside one region, ignoring the motion mask.

    ``box`` is ``(x0, y0, x1, y1)`` in thumbnail pixels; ``ignore`` is a bool
    array of the box's shape (True = motion, not compared); ``fill`` the
    median frame cropped to the box, substituted for ignored pixels before
    hashing so that a moving speaker cannot flip hash bits.
    """

    def __init__(
        self,
        box: tuple[int, int, int, int],
        ignore: np.ndarray,
        fill: np.ndarray,
        hash_threshold: int,
    ) -> None:
        self.box = box
        self.ignore = ignore
        self.keep = ~ignore
        self.fill = fill
        self.hash_threshold = hash_threshold
        compared = int(np.count_nonzero(self.keep))
        self.compared_pixels = compared
        self.min_changed = max(MIN_CHANGED_PIXELS, round(MIN_CHANGED_FRACTION * compared))

    def prepare(self, thumb: np.ndarray) -> Prepared:
        x0, y0, x1, y1 = self.box
        crop = thumb[y0:y1, x0:x1]
        if self.ignore.any():
            crop = np.where(self.ignore, self.fill, crop).astype(np.uint8)
        else:
            crop = np.ascontiguousarray(crop)
        return Prepared(pixels=crop, bits=phash(crop))

    def compare(self, first: Prepared, second: Prepared) -> Verdict:
        distance = hamming(first.bits, second.bits)
        difference = first.pixels.astype(np.int16) - second.pixels.astype(np.int16)
        kept = difference[self.keep]
        if kept.size == 0:
            return Verdict(distance, 0, False)
        offset = grey_offset(kept)
        residual = np.abs(kept - offset)
        changed = int(np.count_nonzero(residual > PIXEL_DELTA))
        if changed >= self.min_changed:
            return Verdict(distance, changed, True)
        if distance > self.hash_threshold:
            faint = int(np.count_nonzero(residual > LOW_CONTRAST_DELTA))
            return Verdict(distance, faint, faint >= self.min_changed)
        return Verdict(distance, changed, False)


class PreparedThumbnails(Sequence[Prepared]):
    """Thumbnails prepared for comparison when used, the last few kept.

    A prepared thumbnail holds its own copy of the compared region, so
    preparing every sample and half up front held a second copy of most of
    the thumbnails through the selection: on an hour of 720p at ``--fps
    0.5`` (1,920 samples, as many halves) about 115 MB more at the run's peak.
    The selection (``dedupe``) reads samples and halves in order and only
    goes back to the last retained sample, so keeping the last ``keep``
    prepares almost every thumbnail once; preparing is deterministic, so
    the verdicts are the same.
    """

    def __init__(
        self, comparator: FrameComparator, thumbs: Sequence[np.ndarray], keep: int = 4
    ) -> None:
        self.comparator = comparator
        self.thumbs = thumbs
        self.keep = keep
        self._recent: OrderedDict[int, Prepared] = OrderedDict()

    def __len__(self) -> int:
        return len(self.thumbs)

    @overload
    def __getitem__(self, index: int) -> Prepared: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Prepared]: ...

    def __getitem__(self, index: int | slice) -> Prepared | Sequence[Prepared]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.thumbs)
        if index in self._recent:
            self._recent.move_to_end(index)
            return self._recent[index]
        prepared = self.comparator.prepare(self.thumbs[index])  # IndexError ends iteration
        self._recent[index] = prepared
        if len(self._recent) > self.keep:
            self._recent.popitem(last=False)
        return prepared
