"""The fixed limit profile of one extraction.

A hostile deck must not be able to exhaust the caller's memory or time. The
archive bounds are checked from the zip directory before any member is
inflated; the worker bounds are enforced by the kernel (``setrlimit``) and by
the parent's wall-clock deadline.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_input_bytes: int = 512 * MIB
    max_members: int = 20_000
    max_total_uncompressed_bytes: int = 1024 * MIB
    max_member_uncompressed_bytes: int = 512 * MIB
    # Deflate tops out near 1032:1; an honest OOXML part rarely exceeds 100:1.
    max_compression_ratio: float = 200.0
    # Members this small may have any ratio (tiny XML compresses well).
    ratio_exempt_bytes: int = 1 * MIB
    worker_address_space_bytes: int = 3072 * MIB
    worker_cpu_seconds: int = 120
    worker_wall_seconds: float = 180.0
    max_worker_output_bytes: int = 256 * MIB


DEFAULT_LIMITS = Limits()
