"""Measuring and table code the two benchmark scripts share."""

from __future__ import annotations

import resource
import subprocess
import time
from typing import Any

import returns_testdata as td


def member(
    i: int, name: str, names: list[str], duration: float, slides: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A batch member's talk record and its ``pptx_catalog`` row."""
    yid = f"bench{i:06d}"
    record = td.talk(
        name,
        yid,
        google_drive_id=f"benchdrive{i}",
        pptx_path=f"Bench/{i}.pptx",
        slide_source="both",
        _queue_claim=td.claim_v5(names),
        source_identity={
            "schema_version": 1,
            "provider": "youtube",
            "video_id": yid,
            "duration_seconds": duration,
        },
    )
    row = {
        "schema_version": 1,
        "pptx_path": f"Bench/{i}.pptx",
        "talk_filename": name,
        "matched": True,
        "slide_count": slides,
        "visual_extracted": False,
    }
    return record, row


def timed(
    argv: list[str], env: dict[str, str]
) -> tuple[float, float, subprocess.CompletedProcess[bytes]]:
    """Wall seconds and child CPU seconds (user + system) of one console-script run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def table(rows: list[tuple[str, str]], width: int) -> None:
    """Print ``measure``/``value`` rows: labels left in 46 columns, values right in ``width``."""
    for label, value in [("measure", "value"), *rows]:
        print(f"{label:<46}{value:>{width}}")
