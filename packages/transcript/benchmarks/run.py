"""Transcript benchmarks: Whisper on 5 minutes of synthesized speech, and VTT import.

Usage: ``.venv/bin/python packages/transcript/benchmarks/run.py [--quick]``

1. ``espeak-ng`` reads ``speech_text.txt`` (about 850 words written for this
   benchmark) into a WAV of about five minutes. Each decoding configuration
   runs in its own subprocess through ``rvault_transcript.whisper.transcribe``
   (the production path, embedded tiny.en, int8 on CPU) and reports the
   realtime factor (audio seconds / wall seconds, model load included; and
   audio seconds / half the CPU seconds used, which is what the wall figure
   would be on two otherwise idle cores), the
   word error rate against the spoken text (word-level edit distance over
   lower-cased words without punctuation) and the subprocess's peak RSS.
2. A two-hour YouTube-style rolling caption file (2,400 cues plus hold cues)
   is generated and imported: parse, deduplicate, build the transcript bytes
   and the validated timing receipt v2, timed in process (best of 5).

Targets (issue 5): realtime factor >= 15x, WER <= 6 %, peak RSS <= 500 MB,
VTT import <= 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXT = HERE / "speech_text.txt"
ESPEAK_SPEED = 147  # words per minute; makes the text about 300 s long

CONFIGS: dict[str, dict[str, object]] = {
    "default: batched 2, beam 5": {},
    "sequential beam 5": {"beam_size": 5, "batch_size": 0},
    "sequential beam 1": {"beam_size": 1, "batch_size": 0},
    "sequential beam 1 + VAD": {"beam_size": 1, "batch_size": 0, "vad_filter": True},
    "batched 4, beam 1": {"beam_size": 1, "batch_size": 4},
    "batched 8, beam 5": {"beam_size": 5, "batch_size": 8},
}


def normalize_words(text: str) -> list[str]:
    text = text.lower().replace("’", "'")
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text)


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / reference words, by edit distance."""
    ref, hyp = normalize_words(reference), normalize_words(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, other in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other))
        previous = current
    return previous[-1] / max(1, len(ref))


def worker(config: str, wav: str) -> None:
    """Subprocess body: one configuration, JSON result on stdout."""
    from rvault_transcript.whisper import transcribe

    started = time.perf_counter()
    result = transcribe(wav, **CONFIGS[config])  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    text = " ".join(segment[0] for segment in result.segments)
    document = {
        "elapsed": elapsed,
        "cpu": usage.ru_utime + usage.ru_stime,
        "duration": result.duration_seconds,
        "peak_mb": usage.ru_maxrss / 1024,
        "text": text,
    }
    print(json.dumps(document))


def synthesize(directory: Path) -> Path:
    wav = directory / "speech.wav"
    subprocess.run(
        ["espeak-ng", "-s", str(ESPEAK_SPEED), "-w", str(wav), "-f", str(TEXT)], check=True
    )
    return wav


def whisper_rows(quick: bool) -> list[tuple[str, float, float, float, float, float]]:
    reference = TEXT.read_text(encoding="utf-8")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        wav = synthesize(Path(tmp))
        for config in list(CONFIGS)[:2] if quick else CONFIGS:
            done = subprocess.run(
                [sys.executable, __file__, "--worker", config, str(wav)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            data = json.loads(done.stdout)
            rtf = data["duration"] / data["elapsed"]
            cpu_rtf = data["duration"] / (data["cpu"] / 2)
            wer = word_error_rate(reference, data["text"])
            rows.append((config, data["duration"], rtf, cpu_rtf, wer, data["peak_mb"]))
            print(f"  {config}: done", file=sys.stderr, flush=True)
    return rows


def two_hour_vtt() -> str:
    def stamp(ms: int) -> str:
        return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"

    words = TEXT.read_text(encoding="utf-8").split()
    blocks = ["WEBVTT\nKind: captions\nLanguage: en\n"]
    previous = " "
    for i in range(2400):  # one 8-word line every 3 s for 2 hours
        line = " ".join(words[(i * 8 + k) % len(words)] for k in range(8))
        first, rest = line.split(" ", 1)
        start, end = i * 3000, i * 3000 + 2990
        timed = f"{first}<{stamp(start + 300)}><c> {rest}</c>"
        blocks.append(
            f"{stamp(start)} --> {stamp(end)} align:start position:0%\n{previous}\n{timed}\n"
        )
        blocks.append(f"{stamp(end)} --> {stamp(end + 10)} align:start position:0%\n{line}\n \n")
        previous = line
    return "\n".join(blocks)


def vtt_row() -> tuple[float, int, int]:
    from rvault_contracts.canonical import sha256_bytes
    from rvault_transcript.receipts import build_timing_receipt, receipt_bytes
    from rvault_transcript.segments import transcript_bytes
    from rvault_transcript.vtt import vtt_to_segments

    raw = two_hour_vtt().encode("utf-8")
    best = float("inf")
    count = 0
    for _ in range(5):
        started = time.perf_counter()
        segments = vtt_to_segments(raw.decode("utf-8"))
        data = transcript_bytes(segments)
        provenance = {
            "kind": "vtt_artifact",
            "artifact_path": "talk.en.vtt",
            "artifact_sha256": sha256_bytes(raw),
            "cue_extent_seconds": segments[-1].end_seconds,
        }
        receipt_bytes(build_timing_receipt(data, "vtt", provenance, segments))
        best = min(best, time.perf_counter() - started)
        count = len(segments)
    return best, count, len(raw)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="only the default and sequential beam 5"
    )
    parser.add_argument("--worker", nargs=2, metavar=("CONFIG", "WAV"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0
    print("Whisper, embedded tiny.en (int8 CPU), ~5 min espeak-ng speech")
    print("targets: RTF >= 15x, WER <= 6 %, peak RSS <= 500 MB")
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores; other work slows wall RTF)")
    print(
        f"{'configuration':<28} {'audio s':>8} {'RTF wall':>9} {'RTF CPU/2':>10}"
        f" {'WER':>7} {'peak RSS MB':>12}"
    )
    for config, duration, rtf, cpu_rtf, wer, peak in whisper_rows(args.quick):
        print(
            f"{config:<28} {duration:8.1f} {rtf:8.1f}x {cpu_rtf:9.1f}x"
            f" {wer * 100:6.2f}% {peak:12.0f}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    seconds, segments, size = vtt_row()
    print("\nVTT import, 2-hour rolling caption file; target <= 0.3 s")
    print(f"{'file bytes':>12} {'segments':>9} {'best of 5 s':>12}")
    print(f"{size:12d} {segments:9d} {seconds:12.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
