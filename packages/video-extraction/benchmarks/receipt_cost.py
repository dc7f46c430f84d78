"""What binding an extraction to its bytes costs: the SHA-256 and the header probe.

Usage: ``python packages/video-extraction/benchmarks/receipt_cost.py [--mib 512] [--workdir DIR]``.
Prints the best-of-3 ``source_receipt.digest_file`` throughput on a random file of ``--mib``
MiB (read from the page cache, as a re-check right after a download would), and on a
generated 60-s 720p H.264 talk the best-of-5 ``source_binding.read_source`` (digest and
PyAV header probe) beside the best-of-3 wall time of the whole ``rvault-video extract``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_h264,
)
from rvault_video_extraction.source_binding import read_source
from rvault_video_extraction.source_receipt import digest_file


def timed(call: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls."""
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        runs.append(time.perf_counter() - started)
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=512)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/rvault-receipt-bench"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    blob = args.workdir / "random.bin"
    if not blob.exists() or blob.stat().st_size != args.mib << 20:
        blob.write_bytes(os.urandom(args.mib << 20))
    digest = timed(lambda: digest_file(blob), 3)
    outdir = args.workdir / "slides-rebuild" / "Bench1"
    outdir.mkdir(parents=True, exist_ok=True)
    video = outdir / "Bench1.mp4"
    if not video.exists():
        spec = TalkSpec(width=1280, height=720, fps=30, layout="side_by_side",
                        segments=timeline(distinct_slides(12), seconds=5.0))  # fmt: skip
        write_h264(spec, video)
    receipt = timed(lambda: read_source(video, "slides-rebuild/Bench1/Bench1.mp4"), 5)
    script = Path(sys.executable).with_name("rvault-video")
    command = [str(script), "extract", str(video), str(outdir), "Bench1", "--force"]
    extract = timed(lambda: subprocess.run(command, capture_output=True, check=True), 3)
    print("| measure | best |")
    print("| --- | --- |")
    rate = (args.mib << 20) / digest / 1e9
    size = video.stat().st_size / 1e6
    print(f"| digest_file, {args.mib} MiB | {digest:.2f} s ({rate:.2f} GB/s) |")
    print(f"| read_source, 60-s 720p H.264 ({size:.2f} MB) | {receipt * 1000:.1f} ms |")
    print(f"| rvault-video extract, same file | {extract:.2f} s |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
