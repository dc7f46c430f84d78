"""When each part of the picture changes: the temporal evidence for the slide region.

Slides change in steps: a slide stays put, then at a few moments (a cut, a
fade, a build) the slide area changes and holds still again. A filmed
speaker changes all the time, and its pixels change at moments of their
own. So the picture is cut into ``BLOCK`` x ``BLOCK`` pixel blocks of the
grayscale thumbnails, and for every pair of consecutive sub-samples (half a
sampling interval apart) a block has a change *event* when at least
``EVENT_SHARE`` of its pixels moved by more than ``EVENT_DELTA`` grey levels.

* A *step moment* is a pair in which clearly more otherwise calm blocks
  change together than in a typical pair (the blocks of a slide change, on
  top of whatever a speaker moves): at least ``MIN_STEP_BLOCKS`` (and
  ``MIN_STEP_SHARE`` of the frame) and ``STEP_SPREADS`` median absolute
  deviations above the median count.
* A block's events outside the step moments are *asynchronous*. A block
  with at least ``MIN_ASYNC`` of them that also make up ``ASYNC_SHARE`` of
  the pairs without a step keeps changing on its own: a speaker, a camera
  picture, a video clip. Those blocks are *moving*.
* A block that changed more often at step moments than outside them and
  is not moving (nor within ``NEIGHBOURHOOD`` blocks of a moving block,
  where a speaker's rare excursions land) is *slide change evidence*,
  unless its connected group of such blocks lies mostly within ``FRINGE``
  blocks of the moving ones.

A step moment whose changing calm blocks lie mostly within ``FRINGE``
blocks of the moving ones is the speaker's (it stepped to the edge of its
area and stood a moment) and is dropped, and the moving blocks are counted
again. A build that changes a few blocks is not a step moment, but it is one
asynchronous event of a calm block, far below ``MIN_ASYNC``, so it cannot
make slide blocks look like a speaker. Two iterations are run: the first
step moments are counted over blocks that change in at most half of the
pairs; the second over the blocks the first found not moving.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

BLOCK = 4
EVENT_DELTA = 16
EVENT_SHARE = 0.125
CALM_RATE = 0.5
MIN_STEP_BLOCKS = 6
MIN_STEP_SHARE = 0.003
STEP_SPREADS = 6.0
MIN_ASYNC = 3
ASYNC_SHARE = 0.08
NEIGHBOURHOOD = 2
FRINGE = 4
SPEAKER_SHARE = 0.5


@dataclass(frozen=True)
class ChangeTiming:
    """Per-block change statistics of a thumbnail sequence (block grid shape ``(rows, cols)``).

    ``events`` is ``(pairs, rows, cols)``; ``steps`` marks the step moments;
    ``moving`` the blocks that change on their own; ``evidence`` the blocks
    that change with the slides only.
    """

    events: np.ndarray
    steps: np.ndarray
    moving: np.ndarray
    evidence: np.ndarray

    @property
    def step_count(self) -> int:
        return int(np.count_nonzero(self.steps))

    def moving_reach(self) -> np.ndarray:
        """Moving blocks and every block within ``NEIGHBOURHOOD`` of one."""
        return _near(self.moving, NEIGHBOURHOOD)


def block_events(sequence: list[np.ndarray], sources: list[int]) -> np.ndarray:
    """Change events per pair of consecutive distinct decoded frames, per block."""
    height, width = sequence[0].shape
    rows, cols = height // BLOCK, width // BLOCK
    events: list[np.ndarray] = []
    for (previous, first), (current, second) in itertools.pairwise(
        zip(sequence, sources, strict=True)
    ):
        if first == second:
            continue
        changed = (cv2.absdiff(previous, current) > EVENT_DELTA)[: rows * BLOCK, : cols * BLOCK]
        share = changed.reshape(rows, BLOCK, cols, BLOCK).mean(axis=(1, 3))
        events.append(share >= EVENT_SHARE)
    if not events:
        return np.zeros((0, rows, cols), dtype=bool)
    return np.stack(events)


def _steps(events: np.ndarray, calm: np.ndarray) -> np.ndarray:
    """Pairs in which clearly more calm blocks change than in a typical pair.

    A filmed speaker makes a fluctuating number of calm blocks change in
    every pair (the edges of a moving figure, rarely visited places); a slide
    change adds a burst on top. The baseline is the median count, its spread
    the median absolute deviation, both robust while steps are a minority of
    the pairs.
    """
    counts = events[:, calm].sum(axis=1) if calm.any() else np.zeros(len(events), np.int64)
    baseline = float(np.median(counts))
    spread = float(np.median(np.abs(counts - baseline)))
    needed = max(MIN_STEP_BLOCKS, MIN_STEP_SHARE * calm.size, STEP_SPREADS * spread)
    return counts >= baseline + needed


def _moving(events: np.ndarray, steps: np.ndarray) -> np.ndarray:
    quiet_pairs = int(np.count_nonzero(~steps))
    asynchronous = events[~steps].sum(axis=0)
    return asynchronous >= max(MIN_ASYNC, ASYNC_SHARE * quiet_pairs)


def analyse_timing(sequence: list[np.ndarray], sources: list[int] | None = None) -> ChangeTiming:
    """Step moments, moving blocks and slide-change evidence of a thumbnail sequence."""
    if sources is None:
        sources = list(range(len(sequence)))
    events = block_events(sequence, sources)
    shape = events.shape[1:]
    if len(events) == 0:
        empty = np.zeros(shape, dtype=bool)
        return ChangeTiming(events, np.zeros(0, dtype=bool), empty, empty)
    calm = events.mean(axis=0) <= CALM_RATE
    steps = _steps(events, calm)
    moving = _moving(events, steps)
    steps = _steps(events, ~moving)
    moving = _moving(events, steps)
    steps &= ~_speaker_moments(events, moving)
    moving = _moving(events, steps)
    synchronous = events[steps].sum(axis=0)
    asynchronous = events[~steps].sum(axis=0)
    steady = synchronous > asynchronous
    evidence = _away_from_motion(steady & ~_near(moving, NEIGHBOURHOOD), moving)
    return ChangeTiming(events=events, steps=steps, moving=moving, evidence=evidence)


def _speaker_moments(events: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """Pairs whose changing calm blocks lie mostly beside the moving ones.

    A speaker who steps to the edge of the area it usually moves in, and
    stays a moment, changes many calm blocks at once, like a slide step;
    but those blocks lie along the moving area (within ``FRINGE`` blocks),
    while a slide's change lies mostly away from it.
    """
    fringe = _near(moving, FRINGE) & ~moving
    calm = events & ~moving
    changed = calm.sum(axis=(1, 2))
    beside = (calm & fringe).sum(axis=(1, 2))
    return beside > SPEAKER_SHARE * np.maximum(changed, 1)


def _near(mask: np.ndarray, blocks: int) -> np.ndarray:
    reach = np.ones((2 * blocks + 1, 2 * blocks + 1), np.uint8)
    return cv2.dilate(mask.astype(np.uint8), reach) > 0


def _away_from_motion(evidence: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """Drop evidence components that lie mostly within ``FRINGE`` blocks of moving blocks.

    A speaker's rare excursions (a hand, a step to the side) land beside the
    places it moves all the time, and some coincide with slide steps. They
    form slivers along the moving area; a slide's changes reach further
    from it.
    """
    count, labels = cv2.connectedComponents(evidence.astype(np.uint8), connectivity=8)
    if count <= 1:
        return evidence
    fringe = _near(moving, FRINGE)
    outside = np.bincount(labels[evidence & ~fringe], minlength=count)
    keep = outside > 0.5 * np.bincount(labels[evidence], minlength=count)
    keep[0] = False
    return keep[labels]


def block_mask_to_pixels(mask: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A block mask as a pixel mask of a thumbnail of ``shape`` (edge remainder: nearest block)."""
    height, width = shape
    pixels = np.repeat(np.repeat(mask, BLOCK, axis=0), BLOCK, axis=1)
    full = np.zeros(shape, dtype=bool)
    full[: pixels.shape[0], : pixels.shape[1]] = pixels
    if pixels.shape[0] < height:
        full[pixels.shape[0] :, : pixels.shape[1]] = pixels[-1:, :]
    if pixels.shape[1] < width:
        full[:, pixels.shape[1] :] = full[:, pixels.shape[1] - 1 : pixels.shape[1]]
    return full
