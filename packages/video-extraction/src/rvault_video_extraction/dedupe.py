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
one.

Skipping unstable samples is only safe while instability means "transition".
When the compared area contains motion the comparator does not ignore (an
unverified region that includes the speaker), samples are unstable because
of the speaker, and a stable sample appears only by chance; skipping the
rest would merge slides away. A transition shorter than one interval makes at
most one nominal sample unstable, so only a *lone* unstable sample is
skipped: runs of two or more unstable samples, and every sample of a video in
which most samples are unstable, are used as if stable (motion may add
pages, it cannot remove slides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rvault_video_extraction.perceptual import FrameComparator, Prepared


@dataclass(frozen=True)
class Selection:
    retained: list[int]
    stable: list[bool]


def stable_samples(
    comparator: FrameComparator, samples: Sequence[Prepared], halves: Sequence[Prepared]
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


MOSTLY_UNSTABLE = 0.5


def usable_samples(stable: list[bool]) -> list[bool]:
    """Stable samples plus every unstable one that cannot be a lone transition sample."""
    if not stable or sum(1 for flag in stable if not flag) > MOSTLY_UNSTABLE * len(stable):
        return [True] * len(stable)
    usable = list(stable)
    index = 0
    while index < len(stable):
        if stable[index]:
            index += 1
            continue
        end = index
        while end < len(stable) and not stable[end]:
            end += 1
        if end - index >= 2:
            usable[index:end] = [True] * (end - index)
        index = end
    return usable


def select_retained(
    comparator: FrameComparator, samples: Sequence[Prepared], halves: Sequence[Prepared]
) -> Selection:
    stable = stable_samples(comparator, samples, halves)
    usable = usable_samples(stable)
    retained: list[int] = []
    for index, sample in enumerate(samples):
        if not usable[index]:
            continue
        if not retained or comparator.compare(samples[retained[-1]], sample).distinct:
            retained.append(index)
    return Selection(retained=retained, stable=stable)
