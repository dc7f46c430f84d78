"""Named limit profiles: what one worker operation may consume.

A hostile deck, PDF or folder must not be able to exhaust the caller's
memory or time. Archive bounds are checked from the zip directory before any
member is inflated; the worker's own bounds are kernel limits (``setrlimit``:
address space, CPU, no file writes, descriptors) plus what the supervisor
watches from outside: wall time, output bytes and the sampled aggregate RSS
of the worker's whole process tree (psutil), so an OCR engine the worker
starts is charged too. Every request carries its profile (name and values)
and the worker echoes it, so a result is bound to the limits it ran under.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    name: str = "pptx_extract"
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
    # Sampled sum of RSS over the worker and every descendant (psutil).
    max_rss_bytes: int = 2048 * MIB
    rss_sample_seconds: float = 0.05
    # Worker stderr kept only long enough to count and hash it.
    max_diagnostic_bytes: int = 64 * 1024
    # A rendered PDF (--rendered-pdf, probe-pdf).
    max_pdf_bytes: int = 256 * MIB
    max_pdf_pages: int = 5_000


PPTX_EXTRACT = Limits()
PDF_PROBE = Limits(
    name="pdf_probe",
    worker_wall_seconds=60.0,
    worker_cpu_seconds=50,
    max_worker_output_bytes=1 * MIB,
    max_rss_bytes=1024 * MIB,
)
DIRECTORY_SCAN = Limits(
    name="directory_scan",
    worker_wall_seconds=60.0,
    worker_cpu_seconds=50,
    max_worker_output_bytes=16 * MIB,
    max_rss_bytes=512 * MIB,
)
PROFILES = {profile.name: profile for profile in (PPTX_EXTRACT, PDF_PROBE, DIRECTORY_SCAN)}
DEFAULT_LIMITS = PPTX_EXTRACT


def with_overrides(profile: Limits, **values: object) -> Limits:
    """The same profile with some bounds changed (tests and benchmarks)."""
    return replace(profile, **values)  # type: ignore[arg-type]
