"""Ordered map over worker processes for the two CPU-bound steps.

Re-running the transcript owner's quality policy on every transcript and
rasterizing every promoted PDF page are pure functions of bytes on disk,
independent per talk and the bulk of a cold render, so they run on every
core. Results come back in input order, so the output does not depend on
scheduling; small inputs stay in-process (a pool costs more than it saves).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_PARALLEL_ITEMS = 16
MAX_WORKERS = 8


def workers() -> int:
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_WORKERS, available or 1))


def ordered_map(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    count = workers()
    if count == 1 or len(items) < MIN_PARALLEL_ITEMS:
        return [function(item) for item in items]
    chunk = max(1, len(items) // (count * 4))
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
        return list(pool.map(function, items, chunksize=chunk))
