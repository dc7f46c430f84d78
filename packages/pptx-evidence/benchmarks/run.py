"""Benchmark ``rvault-pptx extract --no-ocr`` end to end, worker isolation included.

Generates (untimed) the issue's 200-slide deck (text and notes on every
slide, a table every 10th, a group every 7th, a picture every 3rd, a timing
tree every 5th) and a 1-slide deck, then runs the installed console script
as a user would, several times each. Wall time is measured around the whole
process; memory is the peak of the sampled sum of RSS over the process tree
(supervisor + worker, sampled every ~2 ms with psutil) and, as a strict upper
bound, the sum of each process's own peak RSS (``ru_maxrss``) reported by
the command on stderr.

    .venv/bin/python packages/pptx-evidence/benchmarks/run.py [--runs 7]
    .venv/bin/python packages/pptx-evidence/benchmarks/run.py --suite directory
    .venv/bin/python packages/pptx-evidence/benchmarks/run.py --suite ocr

``--suite directory``: 50 generated decks of 50 slides each (2,500 slides)
in a folder tree, one ``rvault-pptx extract --directory ROOT --no-ocr`` run
(scan worker + one worker per deck); target <= 30 s wall.
``--suite ocr``: a 20-picture deck, every picture real rendered text (three
lines of known words), extracted with and without OCR: seconds per picture
is the wall-time difference over 20, word recovery the fraction of the
rendered words found in the receipts (all receipts, and trustworthy ones).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil
from rvault_testkit.plugin import console_script
from rvault_testkit.pptx_evidence import sample_decks

TARGETS = {"200-slide": (1.2, 150.0), "1-slide": (0.35, 150.0), "200-slide+ocr": (3.32, 400.0)}
DIRECTORY_TARGET_S = 30.0
WORDS = [
    "evidence", "speaker", "rhetoric", "audience", "vault", "slide", "pattern",
    "timing", "story", "humor", "opening", "closing", "pacing", "design",
    "contrast", "signal", "reveal", "question", "answer", "moment",
]  # fmt: skip
RSS_LINE = re.compile(r"worker peak_rss_kib=(\d+) supervisor peak_rss_kib=(\d+)")


def measure(
    deck: Path, workdir: Path, *, ocr: bool = False
) -> tuple[float, float, float, float, int]:
    """(wall s, tree CPU s, sampled tree peak MiB, per-process peak sum MiB, slide count)."""
    peak = 0
    done = threading.Event()
    out_path, err_path = workdir / "stdout.json", workdir / "stderr.txt"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            [console_script("rvault-pptx"), "extract", str(deck)] + ([] if ocr else ["--no-ocr"]),
            stdout=out,
            stderr=err,
        )

        def sample() -> None:
            nonlocal peak
            try:
                root = psutil.Process(process.pid)
            except psutil.NoSuchProcess:
                return
            while not done.is_set():
                total = 0
                try:
                    for proc in [root, *root.children(recursive=True)]:
                        total += proc.memory_info().rss
                except (psutil.NoSuchProcess, psutil.ZombieProcess):
                    pass
                peak = max(peak, total)
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # wait4's rusage covers the command and the worker it reaped.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    stdout, stderr = out_path.read_bytes(), err_path.read_bytes()
    if process.returncode != 0:
        raise SystemExit(
            f"extract failed ({process.returncode}): {stdout[:500]!r} {stderr[-500:]!r}"
        )
    match = RSS_LINE.search(stderr.decode())
    upper = (int(match.group(1)) + int(match.group(2))) / 1024 if match else float("nan")
    slides = int(re.search(rb'"slide_count": (\d+)', stdout).group(1))  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime, peak / (1024 * 1024), upper, slides


def timed(command: list[str], out: Path) -> tuple[float, float, str]:
    """(wall s, tree CPU s, stderr) of one command whose stdout goes to ``out``."""
    err = out.with_suffix(".stderr")
    with out.open("wb") as stdout, err.open("wb") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command} failed: {err.read_text()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, err.read_text()


def directory_suite() -> int:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "Presentations"
        deck = sample_decks.benchmark_deck(50)
        for index in range(50):
            folder = root / f"{2000 + index // 10}" / f"Talk {index:02d}"
            folder.mkdir(parents=True)
            (folder / f"talk-{index:02d}.pptx").write_bytes(deck)
        out = Path(tmp) / "batch.json"
        command = [console_script("rvault-pptx"), "extract", "--directory", str(root), "--no-ocr"]
        wall, cpu, _ = timed(command, out)
        envelope = json.loads(out.read_bytes())
        slides = sum(r["extraction"]["slide_count"] for r in envelope["results"])
        size = out.stat().st_size / (1024 * 1024)
    verdict = "ok" if wall <= DIRECTORY_TARGET_S and envelope["complete"] else "MISS"
    print("rvault-pptx extract --directory --no-ocr (scan worker + one worker per deck)")
    print(f"host: {os.cpu_count()} CPUs, 1-min load average {os.getloadavg()[0]:.2f} at the end")
    print(
        f"{'decks':>5} {'slides':>6} {'wall s':>7} {'cpu s':>6} {'slides/s':>9} {'out MiB':>8} "
        f"{'complete':>8} {'target s':>9}"
    )
    print(
        f"{len(envelope['results']):>5} {slides:>6} {wall:>7.2f} {cpu:>6.2f} {slides / wall:>9.1f} "
        f"{size:>8.1f} {str(envelope['complete']).lower():>8} {DIRECTORY_TARGET_S:>9.1f} {verdict}"
    )
    return 0 if verdict == "ok" else 1


def _ocr_deck(pictures: int) -> tuple[bytes, list[list[str]]]:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    expected = []
    for index in range(pictures):
        words = [WORDS[(index * 5 + k) % len(WORDS)] for k in range(9)]
        lines = [" ".join(words[0:3]), " ".join(words[3:6]), " ".join(words[6:9])]
        expected.append(words)
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        image = sample_decks.text_image(lines, (1200, 320))
        slide.shapes.add_picture(io.BytesIO(image), Inches(1), Inches(1), Inches(8), Inches(2.1))
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue(), expected


def ocr_suite(runs: int) -> int:
    import json

    pictures = 20
    with tempfile.TemporaryDirectory() as tmp:
        deck = Path(tmp) / "ocr20.pptx"
        data, expected = _ocr_deck(pictures)
        deck.write_bytes(data)
        out = Path(tmp) / "out.json"
        base = [console_script("rvault-pptx"), "extract", str(deck)]
        plain = [timed([*base, "--no-ocr"], out)[0] for _ in range(runs)]
        with_ocr = [timed(base, out) for _ in range(runs)]
        document = json.loads(out.read_bytes())
    receipts = [
        r
        for slide in document["per_slide_visual"]
        for c in slide["text_channels"]
        if c["channel"] == "picture_ocr"
        for r in c["ocr_receipts"]
    ]
    total = sum(len(words) for words in expected)
    found = trusted = 0
    for receipt, words in zip(receipts, expected, strict=True):
        recovered = set(receipt["recovered_text"].split())
        hits = sum(1 for word in words if word in recovered)
        found += hits
        trusted += hits if receipt["trustworthy_text"] else 0
    ocr_wall = statistics.median(w for w, _, _ in with_ocr)
    per_picture = (ocr_wall - statistics.median(plain)) / pictures
    print(f"rvault-pptx extract, {pictures}-picture deck of rendered text, {runs} runs each")
    print(f"host: {os.cpu_count()} CPUs, 1-min load average {os.getloadavg()[0]:.2f} at the end")
    print(
        f"{'--no-ocr s':>10} {'ocr s':>7} {'s/picture':>9} {'words':>6} {'recovered':>9} "
        f"{'trustworthy':>11} {'engine':>16}"
    )
    engine = f"tesseract {receipts[0]['engine_version']}" if receipts else "none"
    print(
        f"{statistics.median(plain):>10.2f} {ocr_wall:>7.2f} {per_picture:>9.3f} {total:>6} "
        f"{found / total:>9.1%} {trusted / total:>11.1%} {engine:>16}"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--suite", choices=("deck", "directory", "ocr"), default="deck")
    args = parser.parse_args()
    if args.suite == "directory":
        return directory_suite()
    if args.suite == "ocr":
        return ocr_suite(min(args.runs, 3))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        decks = {"200-slide": workdir / "deck200.pptx", "1-slide": workdir / "deck1.pptx"}
        decks["200-slide"].write_bytes(sample_decks.benchmark_deck(200))
        decks["1-slide"].write_bytes(sample_decks.one_slide_deck())
        measure(decks["1-slide"], workdir)  # warm the page cache and .pyc files
        rows = []
        for name, deck, ocr in (
            ("200-slide", decks["200-slide"], False),
            ("1-slide", decks["1-slide"], False),
            ("200-slide+ocr", decks["200-slide"], True),
        ):
            runs = [measure(deck, workdir, ocr=ocr) for _ in range(args.runs)]
            walls = [r[0] for r in runs]
            median = statistics.median(walls)
            cpu = statistics.median(r[1] for r in runs)
            sampled = max(r[2] for r in runs)
            upper = max(r[3] for r in runs)
            slides = runs[0][4]
            wall_target, rss_target = TARGETS[name]
            verdict = "ok" if median <= wall_target and upper <= rss_target else "MISS"
            rows.append(
                (
                    name,
                    slides,
                    median,
                    min(walls),
                    cpu,
                    slides / median,
                    sampled,
                    upper,
                    wall_target,
                    verdict,
                )
            )
    header = (
        f"{'deck':<13} {'slides':>6} {'median s':>9} {'min s':>7} {'cpu s':>6} {'slides/s':>9} "
        f"{'tree MiB':>9} {'sum MiB':>8} {'target s':>9} {'':>5}"
    )
    load = os.getloadavg()[0]
    print(f"rvault-pptx extract --no-ocr, {args.runs} runs each, worker isolation included")
    print(f"host: {os.cpu_count()} CPUs, 1-min load average {load:.2f} at the end of the run")
    print(header)
    print("-" * len(header))
    for name, slides, median, low, cpu, rate, sampled, upper, target, verdict in rows:
        print(
            f"{name:<13} {slides:>6} {median:>9.3f} {low:>7.3f} {cpu:>6.3f} {rate:>9.1f} "
            f"{sampled:>9.1f} {upper:>8.1f} {target:>9.2f} {verdict:>5}"
        )
    print(
        "cpu s: median user+sys of the whole process tree (supervisor + worker); "
        "tree MiB: sampled peak of summed RSS; sum MiB: sum of per-process peaks (upper bound)"
    )
    return 0 if all(row[-1] == "ok" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
