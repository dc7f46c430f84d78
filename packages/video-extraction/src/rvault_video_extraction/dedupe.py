"""Which samples become PDF pages: stability first, then novelty.

A nominal sample ``p[k]`` is *stable* when it matches (per the comparator)
the half sample just before it (``q[k-1]``) or just after it (``q[k]``).
Those neighbours are half a sampling interval away, so a sample taken in
the middle of a fade, a wipe or any transition differs from both and is
skipped, while the proof that no slide is missed goes like this: nominal
samples and halves each recur once per interval ``T``, so any stretch of at
least ``T`` during which a slide is stable contains one of each, and two
members of the merged sequence inside one interval are consecutive or have
only members of that interval between them. The stretch therefore contains a
consecutive matching pair, and every such pair includes a nominal sample.

A stable sample is retained when it differs from the *last retained* one:
A, B, A yields three pages, while a slide that stays up for minutes yields
one. If a video never holds still (no stable sample at all), every sample is
treated as stable so that the result is never empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from rvault_video_extraction.perceptual import FrameComparator, Prepared


@dataclass(frozen=True)
class Selection:
    retained: list[int]
    stable: list[bool]


def stable_samples(
    comparator: FrameComparator, samples: list[Prepared], halves: list[Prepared]
) -> list[bool]:
    stable: list[bool] = []
    for index, sample in enumerate(samples):
        after = index < len(halves) and not comparator.compare(sample, halves[index]).distinct
        before = (
            index > 0
            and index - 1 < len(halves)
            and not comparator.compare(halves[index - 1], sample).distinct
        )
        lone = len(samples) == 1 and not halves
        stable.append(after or before or lone)
    return stable


def select_retained(
    comparator: FrameComparator, samples: list[Prepared], halves: list[Prepared]
) -> Selection:
    stable = stable_samples(comparator, samples, halves)
    usable = stable if any(stable) else [True] * len(samples)
    retained: list[int] = []
    for index, sample in enumerate(samples):
        if not usable[index]:
            continue
        if not retained or comparator.compare(samples[retained[-1]], sample).distinct:
            retained.append(index)
    return Selection(retained=retained, stable=stable)
