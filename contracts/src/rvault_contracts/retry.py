"""The retry contract for hash-bound writers: re-read, re-plan, re-apply.

Every vault write is bound to the exact bytes the caller read (an
``--expected-sha256`` or a :class:`~rvault_contracts.writer.Snapshot`). Under
contention that binding is what keeps updates from being lost, and also what
makes a slow read-plan-apply cycle lose every race against fast writers
(queue claims, recovers): a mutator that retried at once, or not at all,
landed 1 of 211 attempts. The contract every caller follows is:

1. a refusal whose code is in :data:`RETRYABLE_CODES` means *someone else
   wrote first*; nothing of ours was written;
2. the caller re-reads the file, re-plans its change against what it now
   holds (the change may no longer apply: that is a normal refusal, not a
   retry), and applies bound to the new hash;
3. between attempts it waits a random, growing delay (full jitter), so
   competing retriers spread out instead of colliding again.

:func:`retry_bound` is that loop; ``attempt`` is one complete
read-plan-apply cycle and must not reuse anything read by an earlier one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from typing import TypeVar

from rvault_contracts.cli import Refusal

__all__ = ["RETRYABLE_CODES", "RetriesExhausted", "retry_bound"]

#: Codes that mean "the file moved under you; nothing of yours was written".
RETRYABLE_CODES = frozenset(
    {"expected_sha256_mismatch", "input_changed", "lock_unavailable", "generation_mismatch"}
)

T = TypeVar("T")


class RetriesExhausted(Refusal):
    """Every attempt lost a race; carries the last refusal's code as ``last_code``."""


def retry_bound(
    attempt: Callable[[int], T],
    *,
    attempts: int = 8,
    codes: Collection[str] = RETRYABLE_CODES,
    base_delay: float = 0.005,
    max_delay: float = 0.25,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] = random.random,
) -> T:
    """Run ``attempt(n)`` (n = 0, 1, ...) until it is not refused for a lost race.

    Any other refusal or exception propagates at once. After ``attempts``
    lost races raises :class:`RetriesExhausted` (code ``retries_exhausted``)
    with the number of attempts and the last code in its context.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    last: Refusal | None = None
    for n in range(attempts):
        try:
            return attempt(n)
        except Refusal as refusal:
            if refusal.code not in codes:
                raise
            last = refusal
        if n + 1 < attempts:
            sleep(rng() * min(max_delay, base_delay * (2**n)))
    assert last is not None
    raise RetriesExhausted(
        "retries_exhausted",
        f"{attempts} attempts each lost a race ({last.code}): {last.message}",
        last.path,
        attempts=attempts,
        last_code=last.code,
    )
