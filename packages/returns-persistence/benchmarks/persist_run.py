"""Benchmark: persist a 5-talk batch into a 10,000-talk database.

Each member has a 60-minute transcript (720 caption lines) with the
transcript owner's timing and quality receipts, a 60-page slide PDF, a
60-slide native deck (python-pptx) recorded in ``pptx_catalog``, and the
downloaded delivery video; each return carries 30 cited detections with 40
citations in all (transcript quotes, slide numbers, video intervals), a
60-slide ledger and the full catalog's not_evaluable rows. The batch is
persisted by the installed console script, start-up included, on a fresh
copy of the database each run. Targets from the issue: <= 3.0 s wall,
<= 400 MB peak RSS.

    .venv/bin/python packages/returns-persistence/benchmarks/persist_run.py [--runs N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import persist_vault as pv  # noqa: E402
import returns_testdata as td  # noqa: E402
from _measure import member, table, timed  # noqa: E402
from run import MEMBERS, SLIDES, TALKS, filler_talk, realistic_return  # noqa: E402

CUES = 720  # 60 minutes of 5-second captions
CITATIONS = 40


def _deck(path: Path, slides: int) -> None:
    from pptx import Presentation

    deck = Presentation()
    layout = deck.slide_layouts[1]
    for n in range(1, slides + 1):
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = f"Slide {n}"
        slide.placeholders[1].text = f"Point {n}: one idea per slide"
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def _more(citation: dict[str, Any], k: int) -> dict[str, Any]:
    """Another honest locator through the same source and channel."""
    extra = dict(citation)
    if "quote" in extra:
        extra["quote"] = pv.quote(100 + k * 13)
    elif "slide_numbers" in extra:
        start = 5 + k
        extra["slide_numbers"] = [start] if citation["channel"] == "slides" else [start, start + 1]
    elif "start_seconds" in extra:
        extra["start_seconds"], extra["end_seconds"] = 60.0 * k, 60.0 * k + 20.0
    return extra


def bench_return(talk: dict[str, Any], root: Path) -> dict[str, Any]:
    ret = realistic_return(talk, root)
    po = ret["pattern_observations"]
    records = [*po["patterns_detected"], *po["antipatterns_detected"]]
    for i, record in enumerate(records):
        for citation in record["evidence_citations"]:
            if "quote" in citation:
                citation["quote"] = pv.quote(10 + i * 17)
    total = sum(len(r["evidence_citations"]) for r in records)
    k = 0
    while total < CITATIONS:
        record = records[k % len(records)]
        record["evidence_citations"].append(_more(record["evidence_citations"][0], k))
        total += 1
        k += 1
    for row in po["applicability_assessments"]:
        for citation in row["evidence_citations"]:
            if "quote" in citation:
                citation["quote"] = pv.quote(7)
    return ret


def build(root: Path) -> tuple[Path, Path]:
    names = [f"2024-06-{i + 1:02d}-member.md" for i in range(MEMBERS)]
    talks = [filler_talk(i) for i in range(TALKS - MEMBERS)]
    pptx, members = [], []
    for i, name in enumerate(names):
        yid = f"bench{i:06d}"
        duration = pv.write_youtube_transcript(root, yid, CUES)
        record, row = member(i, name, names, duration, SLIDES)
        members.append(record)
        pptx.append(row)
        td.write_pdf(root / "slides" / f"benchdrive{i}.pdf", SLIDES)
        _deck(root / "Bench" / f"{i}.pptx", SLIDES)
        td.write_video(root, yid)
    talks.extend(members)
    db = pv.write_database(root, td.database(talks, pptx))
    returns = [bench_return(t, root) for t in members]
    assert all(
        sum(len(r["evidence_citations"]) for lane in ("patterns_detected", "antipatterns_detected")
            for r in ret["pattern_observations"][lane]) == CITATIONS
        for ret in returns
    )  # fmt: skip
    batch = td.write_json(root / "batch-returns.json", returns)
    return db, batch


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, bytes]:
    """Wall seconds, child CPU seconds, child peak RSS (KiB) and stdout of one run."""
    wall, cpu, done = timed(["/usr/bin/time", "-f", "%M", *argv], env)
    rss = int(done.stderr.decode().strip().splitlines()[-1])
    assert done.returncode == 0, done.stdout[:3000]
    return wall, cpu, rss, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    script = Path(sys.executable).parent / "rvault-returns"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        db, batch = build(root)
        pristine = Path(tmp) / "pristine.json"
        shutil.copyfile(db, pristine)
        size_mb = db.stat().st_size / 1e6
        # the timed run is the apply a reviewed dry run names: bound to the pristine bytes
        reviewed = hashlib.sha256(pristine.read_bytes()).hexdigest()
        argv = [str(script), "persist", str(db), str(batch), "--run-date", pv.RUN_DATE,
                "--apply", "--expected-sha256", reviewed]  # fmt: skip
        walls, cpus, rsss = [], [], []
        for run in range(args.runs + 1):  # the first run warms up (byte-compile, page cache)
            db.unlink()
            shutil.copyfile(pristine, db)
            wall, cpu, rss, stdout = _timed(argv, env)
            report = json.loads(stdout)
            assert report["database_written"] and len(report["talks"]) == MEMBERS
            if run:
                walls.append(wall)
                cpus.append(cpu)
                rsss.append(rss)
    load = os.getloadavg()[0]
    table(
        [
            ("database talks / size", f"{TALKS} / {size_mb:.1f} MB"),
            (
                "batch: members x (lines, citations, slides)",
                f"{MEMBERS} x ({CUES}, {CITATIONS}, {SLIDES})",
            ),
            (f"persist wall, median of {args.runs} (s)", f"{statistics.median(walls):.3f}"),
            ("persist wall, max (s)", f"{max(walls):.3f}"),
            ("persist CPU user+sys, median (s)", f"{statistics.median(cpus):.3f}"),
            ("peak RSS, max (MB)", f"{max(rsss) / 1024:.1f}"),
            ("host load average (1 min) / cores", f"{load:.1f} / {os.cpu_count()}"),
            ("targets: wall (s) / peak RSS (MB)", "3.0 / 400"),
        ],
        18,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
