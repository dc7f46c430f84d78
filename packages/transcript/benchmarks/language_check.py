"""What the caption-language check costs a VTT import: lingua's model load and its windows.

Usage: ``.venv/bin/python packages/transcript/benchmarks/language_check.py``

Each input is classified by :func:`rvault_transcript.text_language.detect_text_languages`
in a fresh interpreter (so the models load as they do in one ``vtt-cleanup``
process), twice: the first call loads lingua's trigram models of every
language its rules leave for the text (all Latin-script languages for
English or Spanish), the second shows the per-window cost alone. The
models are preloaded and the windows classified on lingua's thread pool
(every core), so each input runs twice: with ``RAYON_NUM_THREADS=1`` (one
thread: the serial cost, as before the pool was used) and with the pool's
default (one thread per core). Wall and CPU seconds (user + system of all
threads, the figure that survives a loaded machine) and the detected shares
are printed per input:

- the 10-minute (150 cues) and 2-hour (1,800 cues) captions of
  ``tools/bench_small_jobs.py``'s size, nine words a line from
  ``speech_text.txt``;
- ``tools/fixtures/speaker-run/netflix_chicas_del_cable.vtt`` (real Spanish
  subtitles, webvtt-py's test data).

The rest of a ``vtt-cleanup`` run (start-up, parse, receipts, the bundle
write) is ``tools/bench_small_jobs.py`` minus these figures.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SPEECH = HERE / "speech_text.txt"
NETFLIX = ROOT / "tools" / "fixtures" / "speaker-run" / "netflix_chicas_del_cable.vtt"

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from rvault_transcript.text_language import detect_text_languages, text_windows
from rvault_transcript.vtt import vtt_to_segments

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

source = Path(sys.argv[1])
text = source.read_text(encoding="utf-8")
lines = [s.text for s in vtt_to_segments(text)] if source.suffix == ".vtt" else text.splitlines()
start, wall = cpu(), time.perf_counter()
detection = detect_text_languages(lines)
first, first_wall = cpu() - start, time.perf_counter() - wall
start, wall = cpu(), time.perf_counter()
detect_text_languages(lines)
again, again_wall = cpu() - start, time.perf_counter() - wall
print(json.dumps({"windows": len(text_windows(lines)), "first": first, "again": again,
                  "first_wall": first_wall, "again_wall": again_wall,
                  "shares": detection.summary() if detection else None}))
"""


def caption_lines(count: int) -> str:
    """``count`` caption lines of nine consecutive words of the speech text, numbered."""
    words = SPEECH.read_text(encoding="utf-8").split()
    lines = []
    for index in range(count):
        start = (index * 37) % (len(words) - 10)
        lines.append(" ".join([*words[start : start + 9], str(index + 1)]))
    return "\n".join(lines)


def measure(path: Path, threads: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
    if threads is not None:
        env["RAYON_NUM_THREADS"] = threads
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rvault-language-check-") as tmp:
        inputs = {}
        for label, cues in (("10-minute captions", 150), ("2-hour captions", 1800)):
            path = Path(tmp) / f"{cues}.txt"
            path.write_text(caption_lines(cues), encoding="utf-8")
            inputs[label] = path
        inputs["netflix_chicas_del_cable.vtt"] = NETFLIX
        rows = [
            (label, threads or "all", measure(path, threads))
            for label, path in inputs.items()
            for threads in ("1", None)
        ]
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores; wall / CPU seconds")
    print(
        f"{'input':<30} {'threads':>7} {'windows':>7} {'1st wall':>9} {'1st CPU':>8}"
        f" {'again wall':>10} {'again CPU':>9} {'ms/window':>9}  shares"
    )
    for label, threads, row in rows:
        windows = int(str(row["windows"]))
        first, again = float(str(row["first"])), float(str(row["again"]))
        first_wall, again_wall = float(str(row["first_wall"])), float(str(row["again_wall"]))
        per_window = 1000 * again / max(windows, 1)
        print(
            f"{label:<30} {threads:>7} {windows:>7} {first_wall:>9.3f} {first:>8.3f}"
            f" {again_wall:>10.3f} {again:>9.3f} {per_window:>9.2f}  {row['shares']}"
        )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of a child: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
