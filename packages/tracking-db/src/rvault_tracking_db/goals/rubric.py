"""The status rubric: where the current value stands between baseline and target.

``achieved`` meets or beats the target; ``improving`` moved toward it by a
meaningful step; ``regressed`` moved away by one; anything smaller is
``stalled``. The step is five percentage points: with the few talks a
speaker gives between batches, one talk more or less in twenty should not
read as progress.
"""

from __future__ import annotations

MEANINGFUL_STEP = 0.05


def judge(baseline: float, target: float, current: float, direction: int) -> str:
    """``direction`` is -1 when lower is better (an antipattern), 1 when higher is."""
    if direction * (current - target) >= 0:
        return "achieved"
    movement = direction * (current - baseline)
    if movement >= MEANINGFUL_STEP:
        return "improving"
    if movement <= -MEANINGFUL_STEP:
        return "regressed"
    return "stalled"
