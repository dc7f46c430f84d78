"""Peak memory of ``rvault-video extract`` on 720p talks, optionally beside the public peer's.

Renders (once, cached like ``run.py``, same cases and layout) the 1-minute
and 3-minute 1280x720 H.264 ``side_by_side`` talks and runs the installed
console script on each, ``--fps 0.5 --force``, ``--repeat`` times. Peak RSS
is the child's ``ru_maxrss`` from ``wait4``: exact, not sampled, and for a
process that starts children (the peer runs FFmpeg and ffprobe) the largest
of the process and its waited-for descendants. Also printed: the floor
every run pays before decoding anything, a fresh interpreter importing PyAV,
OpenCV and NumPy.

With ``--peer-script`` (the public jbaruch/speaker-toolkit's
``skills/vault-ingress/scripts/video-slide-extraction.py``, exported with
its sibling modules) and ``--peer-python`` (an interpreter with the
dependencies it names: ImageHash, NumPy, Pillow, filelock, psutil), each
round also runs the peer on the same file, ``VIDEO OUTDIR ID --fps 0.5``,
into a fresh directory, alternating with ours.

Usage: ``python packages/video-extraction/benchmarks/memory.py [--repeat 3]
[--peer-script PATH --peer-python PY] [--workdir DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import VIDEO_ID, Case, cases, prepare_video

IMPORT_FLOOR = "import av, cv2, numpy"


def peak_of(command: list[str]) -> tuple[float, float]:
    """(peak RSS MB, CPU s) of one child process; a failing command stops the benchmark."""
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            out.seek(0)
            raise SystemExit(f"{command[:3]} failed: {out.read()[-800:].decode(errors='replace')}")
    return usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def measure(case: Case, workdir: Path, repeat: int, peer: tuple[str, str] | None) -> dict:
    video, outdir = prepare_video(case, workdir)
    ours_command = [
        str(Path(sys.executable).parent / "rvault-video"),
        *("extract", str(video), str(outdir), VIDEO_ID, "--fps", "0.5", "--force"),
    ]
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(repeat):
        ours.append(peak_of(ours_command))
        if peer is not None:
            peer_out = Path(tempfile.mkdtemp(prefix="peer-video-", dir=workdir))
            try:
                python, script = peer
                theirs.append(
                    peak_of([python, script, str(video), str(peer_out), VIDEO_ID, "--fps", "0.5"])
                )
            finally:
                shutil.rmtree(peer_out)
    return {
        "case": case.name,
        "ours_mb": max(peak for peak, _ in ours),
        "ours_cpu_s": min(cpu for _, cpu in ours),
        "peer_mb": max(peak for peak, _ in theirs) if theirs else None,
        "peer_cpu_s": min(cpu for _, cpu in theirs) if theirs else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/rvault-video-bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-script", help="the peer's video-slide-extraction.py")
    parser.add_argument("--peer-python", default=sys.executable, help="interpreter for the peer")
    args = parser.parse_args()
    peer = (args.peer_python, args.peer_script) if args.peer_script else None
    chosen = [cases(quick)[0] for quick in (True, False)]  # side_by_side H.264, 1 and 3 min
    rows = [measure(case, args.workdir, args.repeat, peer) for case in chosen]
    floor, _ = peak_of([sys.executable, "-c", IMPORT_FLOOR])
    print(f"max peak RSS over {args.repeat} runs; import floor ({IMPORT_FLOOR}): {floor:.0f} MB")
    header = (
        f"{'case':<24} {'ours MB':>8} {'cpu s':>6} {'peer MB':>8} {'cpu s':>6} {'ours/peer':>9}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        peer_mb, peer_cpu = row["peer_mb"], row["peer_cpu_s"]
        print(
            f"{row['case']:<24} {row['ours_mb']:>8.1f} {row['ours_cpu_s']:>6.2f} "
            + (
                f"{peer_mb:>8.1f} {peer_cpu:>6.2f} {row['ours_mb'] / peer_mb:>9.2f}"
                if peer_mb is not None
                else f"{'-':>8} {'-':>6} {'-':>9}"
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
