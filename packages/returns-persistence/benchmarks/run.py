"""Benchmark: validate 5 realistic v5 returns against a 10,000-talk database.

Each return carries a 60-slide ledger, 30 cited detections, applicability
assessments and the full default catalog's not_evaluable rows; the batch is
validated by the installed console script (start-up included), the way a
worker runs the gate. Target from the issue: <= 0.6 s wall.

With ``--audited`` each member's deck exists (the testkit's generated
benchmark deck) and its return carries the ``native_deck_audit`` of
``rvault-pptx extract --rendered-pdf --inspected-pages`` over the member's
slide PDF, so validate pays for what it re-proves: one re-extraction and
one PDF probe per return, in pptx-evidence worker subprocesses.

    .venv/bin/python packages/returns-persistence/benchmarks/run.py [--runs N] [--audited]
        [--talks N] [--members N]    # one return, small vault: --talks 20 --members 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import returns_testdata as td  # noqa: E402
from _measure import member, table, timed  # noqa: E402
from rvault_returns_persistence.artifacts import resolve  # noqa: E402
from rvault_returns_persistence.scaffold import build_scaffold  # noqa: E402

TALKS = 10_000
MEMBERS = 5
SLIDES = 60
LINES = 900
DURATION = 2700.0


def filler_talk(i: int) -> dict[str, Any]:
    """A catalogued talk as the shownotes scan leaves it (pending, metadata only)."""
    return {
        "schema_version": 5,
        "filename": f"2019-01-01-filler-{i:05d}.md",
        "title": f"Filler talk number {i}",
        "conference": "ExampleConf",
        "date": "2019-01-01",
        "video_url": f"https://www.youtube.com/watch?v=fill{i:07d}",
        "youtube_id": f"fill{i:07d}",
        "status": "pending",
        "slide_source": "none",
    }


def build(
    root: Path, audited: bool = False, talks_count: int = TALKS, members_count: int = MEMBERS
) -> tuple[Path, Path]:
    names = [f"2024-06-{i + 1:02d}-member.md" for i in range(members_count)]
    talks = [filler_talk(i) for i in range(talks_count - members_count)]
    pptx = []
    members = []
    for i, name in enumerate(names):
        yid = f"bench{i:06d}"
        record, row = member(i, name, names, DURATION, SLIDES)
        members.append(record)
        pptx.append(row)
        td.write_transcript(root, yid, LINES)
        td.write_pdf(root / "slides" / f"benchdrive{i}.pdf", SLIDES)
        td.write_video(root, yid)
    talks.extend(members)
    db = td.write_json(root / "tracking-database.json", td.database(talks, pptx))
    returns = [realistic_return(t, root) for t in members]
    if audited:
        for i, ret in enumerate(returns):
            ret["structured_data"]["native_deck_audit"] = worker_audit(root, i)
    batch = td.write_json(root / "batch-returns.json", returns)
    return db, batch


def worker_audit(root: Path, i: int) -> dict[str, Any]:
    """Member ``i``'s deck written where its pptx_catalog row says, and the worker's audit."""
    import subprocess

    from rvault_testkit.pptx_evidence import sample_decks

    deck = root / "Bench" / f"{i}.pptx"
    deck.parent.mkdir(exist_ok=True)
    deck.write_bytes(sample_decks.benchmark_deck(SLIDES))
    pdf = root / "slides" / f"benchdrive{i}.pdf"
    script = Path(sys.executable).parent / "rvault-pptx"
    argv = [str(script), "extract", str(deck), "--no-ocr", "--rendered-pdf", str(pdf),
            "--inspected-pages", f"1-{SLIDES}"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, check=True)
    audit: dict[str, Any] = json.loads(done.stdout)["native_deck_audit"]
    return audit


def realistic_return(talk: dict[str, Any], root: Path) -> dict[str, Any]:
    inspected = {"transcript", "static_slides", "native_deck", "delivery_video"}
    catalog = td.CATALOG
    candidates = [
        e
        for e in sorted(catalog.observable(), key=lambda e: e.id)
        if not e.pending_owner_review
        and td.pick_source(e.evaluable_from, e.evidence_channels, inspected)
    ][:30]
    detect = tuple(e.id for e in candidates if e.type == "pattern")
    antidetect = tuple(e.id for e in candidates if e.type == "antipattern")
    ret = td.complete_return(talk, root, deck_slides=SLIDES, detect=detect, antidetect=antidetect)
    assert len(detect) + len(antidetect) == 30
    found = resolve(root, talk, deck_slides=SLIDES)
    assert build_scaffold(talk, catalog, found)[0]["pattern_observations"]["source_inspection"][3][
        "time_ranges"
    ]
    rows = []
    for n in range(1, SLIDES + 1):
        rows.append(
            {
                "slide_number": n,
                "background_color_name": ["purple_halftone", "white", "red_halftone"][n % 3],
                "content_type": "meme_only" if n % 5 == 0 else "content_bullets",
                "image_composition": "full_bleed",
                "has_speech_bubble": n % 7 == 0,
                "has_starburst": n % 11 == 0,
                "has_footer": True,
            }
        )
    ret["structured_data"].update(
        slide_count=SLIDES,
        per_slide_visual=rows,
        background_color_sequence=[r["background_color_name"] for r in rows],
        meme_count=sum(r["content_type"] == "meme_only" for r in rows),
        image_source_distribution={"speaker_created": 20, "unknown": 30, "none": 10},
        image_source_distribution_basis=(
            "Unit: slide; dominant source by area; unverified origins count as unknown."
        ),
        typography_observations={"title_font_description": "hand-lettered"},
    )
    ret["verbatim_examples"] = {
        lane: ["a verbatim line from the talk"] * 3
        for lane in ("signature_phrases", "jokes", "transitions", "opening_lines", "closing_lines")
    }
    return ret


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--audited", action="store_true", help="returns carry a real native_deck_audit"
    )
    parser.add_argument("--talks", type=int, default=TALKS, help="talks in the database")
    parser.add_argument("--members", type=int, default=MEMBERS, help="returns in the batch")
    args = parser.parse_args()
    script = Path(sys.executable).parent / "rvault-returns"
    # Measure the tool as installed: byte-compiled modules (a wheel install compiles them;
    # this checkout's environment sets PYTHONDONTWRITEBYTECODE, so the warm-up run does).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db, batch = build(root, args.audited, args.talks, args.members)
        size_mb = db.stat().st_size / 1e6
        argv = [str(script), "validate", str(batch), "--db", str(db)]
        timed(argv, env)  # warm-up: byte-compile, page cache
        walls, cpus = [], []
        for _ in range(args.runs):
            wall, cpu, done = timed(argv, env)
            report = json.loads(done.stdout)
            valid = done.returncode == 0 and report["valid_count"] == args.members
            assert valid, done.stdout[:2000]
            walls.append(wall)
            cpus.append(cpu)
        startup = [timed([str(script), "--version"], env)[0] for _ in range(3)]
    load = os.getloadavg()[0]
    table(
        [
            ("database talks / size", f"{args.talks} / {size_mb:.1f} MB"),
            ("returns x (ledger slides, detections)", f"{args.members} x ({SLIDES}, 30)"),
            ("returns carry a native_deck_audit", "yes" if args.audited else "no"),
            (f"validate wall, median of {args.runs} (s)", f"{statistics.median(walls):.3f}"),
            ("validate wall, min (s)", f"{min(walls):.3f}"),
            ("validate CPU user+sys, median (s)", f"{statistics.median(cpus):.3f}"),
            ("console start-up, --version wall (s)", f"{statistics.median(startup):.3f}"),
            ("host load average (1 min) / cores", f"{load:.1f} / {os.cpu_count()}"),
            ("target wall (s)", f"{0.6:.3f}"),
        ],
        16,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
