"""`make demo`: one batch end to end on the embedded sample vault.

Copies ``demo/sample-vault`` to ``.demo-out/vault`` (a scratch copy, so the
demo can run any number of times), generates the talk's deck with
python-pptx and its recording with OpenCV, then drives every owner's console
script in pipeline order, exactly as an agent would. Each stage prints what it
did and the facts it returned. A stage whose command does not exist yet is
reported as "not built yet" and never faked; a stage that fails stops the
demo with a non-zero exit.

Usage: ``.venv/bin/python tools/demo.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "demo" / "sample-vault"
BIN = Path(sys.executable).parent
TALK = "2025-05-14-the-quiet-slide.md"
YOUTUBE_ID = "Qu1etSl1de0"
RUN_ID, BATCH_ID, NOW = "demo-run", "1", "2026-11-30T12:00:00+00:00"
SLIDES = [
    ("The Quiet Slide", "Letting evidence speak"),
    ("One idea per slide", "and nothing else"),
    ("Show the evidence", "let the numbers do the arguing"),
    ("Pause", "count to three"),
    ("Callbacks", "return to the opening question"),
]


class StageFailed(Exception):
    pass


@dataclass
class Demo:
    out: Path
    built: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def vault(self) -> Path:
        return self.out / "vault"

    @property
    def db(self) -> Path:
        return self.vault / "tracking-database.json"

    def has(self, script: str, command: str) -> bool:
        exe = BIN / script
        if not exe.exists():
            return False
        result = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=False)
        return f"    {command}" in result.stdout

    def run(self, script: str, *args: str | Path, expect_ok: bool = True) -> dict[str, Any]:
        argv = [str(BIN / script), *map(str, args)]
        shown = " ".join([script, *(_short(a, self.out) for a in map(str, args))])
        print(f"  $ {shown}", flush=True)
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=self.out)
        elapsed = time.perf_counter() - started
        try:
            document = json.loads(result.stdout)
        except json.JSONDecodeError:
            raise StageFailed(
                f"{script} printed no JSON (exit {result.returncode}): {result.stderr[-800:]}"
            ) from None
        if expect_ok and (result.returncode != 0 or document.get("ok") is False):
            detail = json.dumps(document.get("error", document))[:800]
            raise StageFailed(f"{script} exit {result.returncode}: {detail}")
        print(f"    exit {result.returncode} in {elapsed:.2f}s", flush=True)
        return document

    def stage(
        self, owner: str, title: str, script: str, command: str, body: Callable[[], None]
    ) -> None:
        print(f"\n[{owner}] {title}", flush=True)
        if not self.has(script, command):
            print(
                f"  not built yet: `{script} {command}` does not exist in this checkout", flush=True
            )
            self.missing.append(f"{owner}: {title}")
            return
        body()
        self.built.append(f"{owner}: {title}")


def _short(arg: str, out: Path) -> str:
    return arg.replace(str(out) + "/", "")


def _read_db(demo: Demo) -> dict[str, Any]:
    return demo.run("rvault-db", "read", demo.db)


def _talk(demo: Demo) -> dict[str, Any]:
    database = _read_db(demo)["database"]
    return next(t for t in database["talks"] if t["filename"] == TALK)


# --- media generated at demo time -------------------------------------------


def make_deck(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title, body in SLIDES:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = f"Say it plainly: {title.lower()}."
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def make_video(path: Path, seconds_per_slide: int = 6, fps: int = 10) -> None:
    """A screencast-style recording: each slide held still, as in a real talk."""
    import cv2
    import numpy as np

    width, height = 640, 360
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
    for number, (title, body) in enumerate(SLIDES, start=1):
        frame = np.full((height, width, 3), 245, np.uint8)
        cv2.rectangle(frame, (0, 0), (width, 56), (90, 40, 20), -1)
        cv2.putText(frame, title, (30, 160), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (20, 20, 20), 3)
        cv2.putText(frame, body, (30, 220), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (60, 60, 60), 2)
        cv2.putText(
            frame,
            f"{number}/{len(SLIDES)}",
            (560, 335),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            (90, 90, 90),
            1,
        )
        for _ in range(seconds_per_slide * fps):
            writer.write(frame)
    writer.release()


def complete_with_worker_analysis(scaffold: Path, out: Path) -> Path:
    """Fill the skeleton with the sample worker's analysis (demo/sample-worker).

    This stands in for the AI worker: the analysis text, the detection and the
    applicability assessments were written for the sample talk and quote its
    transcript verbatim. The toolkit itself never writes analysis content.
    """
    analysis = json.loads((ROOT / "demo" / "sample-worker" / "analysis.json").read_text())
    filled = json.loads(scaffold.read_text())
    filled["rhetoric_notes"] = analysis["rhetoric_notes"]
    filled["areas_for_improvement"] = analysis["areas_for_improvement"]
    observations = filled["pattern_observations"]
    observations["patterns_detected"] = analysis["patterns_detected"]
    observations["applicability_assessments"] = analysis["applicability_assessments"]
    detected = {record["pattern_id"] for record in analysis["patterns_detected"]}
    kept = [r for r in observations["not_evaluable"] if r["pattern_id"] not in detected]
    observations["not_evaluable"] = sorted(
        kept + analysis["not_evaluable_additions"], key=lambda r: r["pattern_id"]
    )
    observations["pattern_score"] = {
        "patterns_used": len(detected),
        "antipatterns_detected": 0,
        "score": len(detected),
    }
    out.write_bytes(artifact_bytes(filled))
    return out


# --- the pipeline ----------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".demo-out", help="scratch directory")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(SAMPLE, out / "vault")
    demo = Demo(out)
    print(f"rhetoric-vault demo: sample vault copied to {out / 'vault'}")
    try:
        run_pipeline(demo)
    except StageFailed as failure:
        print(f"\nDEMO FAILED: {failure}", file=sys.stderr)
        return 1
    print("\nSummary")
    for line in demo.built:
        print(f"  done           {line}")
    for line in demo.missing:
        print(f"  not built yet  {line}")
    return 0


def run_pipeline(demo: Demo) -> None:
    vault, db = demo.vault, demo.db
    state: dict[str, Any] = {}

    def initialize() -> None:
        plan = demo.out / "initialize-plan.json"
        plan.write_text(
            json.dumps(
                {
                    "schema_version": 1,
                    "mutations": [
                        {
                            "kind": "initialize_database",
                            "config": {
                                "shownotes": {
                                    "enabled": True,
                                    "source": {
                                        "type": "local_jekyll",
                                        "path_or_url": str(vault / "shownotes"),
                                        "talks_subdir": "_talks",
                                    },
                                }
                            },
                        }
                    ],
                },
                indent=2,
            )
        )
        dry = demo.run("rvault-db", "mutate", db, plan)
        print(f"    dry-run: {len(dry['changes'])} change(s), database absent")
        applied = demo.run(
            "rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", "missing"
        )
        print(f"    applied: {applied['durability_state']}, sha256 {applied['output_sha256'][:12]}")

    demo.stage("tracking-db", "initialize the tracking database", "rvault-db", "mutate", initialize)

    def scan() -> None:
        dry = demo.run("rvault-db", "scan-shownotes", db)
        report = demo.run(
            "rvault-db", "scan-shownotes", db, "--apply", "--expected-sha256", dry["input_sha256"]
        )
        print(f"    shownotes: {report['counts']}, {report['durability_state']}")

    demo.stage(
        "tracking-db", "import talks from the shownotes site", "rvault-db", "scan-shownotes", scan
    )

    def transcript() -> None:
        vtt = vault / "transcripts" / f"{YOUTUBE_ID}.en.vtt"
        result = demo.run(
            "rvault-transcript", "vtt-cleanup", vtt, vault / "transcripts" / f"{YOUTUBE_ID}.txt"
        )
        print(f"    {result['word_count']} words, timing: {result['timing_status']['code']}")
        verified = demo.run(
            "rvault-transcript", "verify", vault / "transcripts" / f"{YOUTUBE_ID}.txt"
        )
        print(f"    verify: {json.dumps(verified.get('evidence', verified.get('ok')))[:200]}")

    demo.stage(
        "transcript",
        "import captions with timing and quality receipts",
        "rvault-transcript",
        "vtt-cleanup",
        transcript,
    )

    def normalize() -> None:
        sha = _read_db(demo)["sha256"]
        dry = demo.run("rvault-db", "queue", db, "normalize")
        applied = demo.run(
            "rvault-db", "queue", db, "normalize", "--apply", "--expected-sha256", sha
        )
        print(f"    {dry['change_count']} capability change(s); {applied['durability_state']}")

    demo.stage("tracking-db", "derive source capabilities", "rvault-db", "queue", normalize)

    def deck() -> None:
        deck_path = demo.out / "decks" / "quiet-slide.pptx"
        make_deck(deck_path)
        out = vault / "pptx" / "quiet-slide.extraction.json"
        out.parent.mkdir(exist_ok=True)
        result = demo.run("rvault-pptx", "extract", deck_path, "--no-ocr", "--out", out)
        where = _short(str(out), demo.out)
        version, count = result["schema_version"], result["slide_count"]
        print(f"    extraction v{version}: {count} slides -> {where}")

    demo.stage("pptx-evidence", "extract the native deck", "rvault-pptx", "extract", deck)

    def video() -> None:
        workdir = vault / "slides-rebuild" / YOUTUBE_ID
        make_video(workdir / f"{YOUTUBE_ID}.mp4")
        manifest = demo.run(
            "rvault-video",
            "extract",
            workdir / f"{YOUTUBE_ID}.mp4",
            workdir,
            YOUTUBE_ID,
            "--vault-root",
            vault,
            "--region",
            "0,0,1,1",
            "--region-verified",
        )
        trusted = [
            a["artifact_scope"]
            for a in manifest["artifacts"]
            if a["trusted_for_authored_slide_analysis"]
        ]
        print(f"    {manifest['unique_frame_count']} distinct slides; trusted artifacts: {trusted}")
        state["manifest"] = workdir / f"{YOUTUBE_ID}.video-extraction.json"

    demo.stage(
        "video-extraction", "recover slides from the recording", "rvault-video", "extract", video
    )

    def validate_manifest() -> None:
        result = demo.run(
            "rvault-video",
            "validate",
            state["manifest"],
            "--vault-root",
            demo.vault,
            "--video-id",
            YOUTUBE_ID,
            "--require-trusted",
        )
        print(f"    manifest verdict: ok={result.get('ok')}, trusted={result.get('trusted')}")

    if "manifest" in state:
        demo.stage(
            "video-extraction",
            "validate the manifest",
            "rvault-video",
            "validate",
            validate_manifest,
        )

    def catalog() -> None:
        result = demo.run("rvault-returns", "catalog")
        state["fingerprint"] = result["fingerprint"]
        print(
            f"    {result['entry_count']} catalog entries, fingerprint {result['fingerprint'][:12]}"
        )

    demo.stage(
        "returns-persistence",
        "fingerprint the pattern catalog",
        "rvault-returns",
        "catalog",
        catalog,
    )

    def claim() -> None:
        extra = ["--catalog-fingerprint", state["fingerprint"]] if "fingerprint" in state else []
        request = [
            "rvault-db",
            "queue",
            db,
            "claim",
            "--run-id",
            RUN_ID,
            "--batch-id",
            BATCH_ID,
            "--now",
            NOW,
            "--talk",
            TALK,
            *extra,
        ]
        dry = demo.run(*request)
        result = demo.run(*request, "--apply", "--expected-sha256", dry["input_sha256"])
        print(f"    claimed: {json.dumps(result.get('claimed', result.get('talks', '')))[:200]}")

    demo.stage("tracking-db", "claim the talk for a worker", "rvault-db", "queue", claim)

    def scaffold() -> None:
        skeleton = demo.run(
            "rvault-returns", "scaffold", "--db", db, "--talk", TALK, "--vault-root", vault
        )
        path = demo.out / "worker-return.scaffold.json"
        path.write_text(
            json.dumps(skeleton.get("return", skeleton), indent=2, sort_keys=True) + "\n"
        )
        state["scaffold"] = path
        print(f"    skeleton for the worker -> {_short(str(path), demo.out)}")

    demo.stage(
        "returns-persistence", "scaffold the worker return", "rvault-returns", "scaffold", scaffold
    )

    def validate() -> None:
        report = demo.run(
            "rvault-returns",
            "validate",
            state["scaffold"],
            "--db",
            db,
            "--vault-root",
            vault,
            expect_ok=False,
        )
        returns = report.get("returns", [])
        codes = sorted({e["code"] for r in returns for e in r.get("errors", [])})
        print(
            "    the unfilled skeleton is refused until a worker writes the analysis; "
            f"error codes: {codes[:8]}{' ...' if len(codes) > 8 else ''}"
        )

    if "scaffold" in state:
        demo.stage(
            "returns-persistence",
            "gate the (still empty) worker return",
            "rvault-returns",
            "validate",
            validate,
        )

    def worker() -> None:
        path = complete_with_worker_analysis(state["scaffold"], demo.out / "worker-return.json")
        report = demo.run("rvault-returns", "validate", path, "--db", db, "--vault-root", vault)
        state["completed"] = path
        generation = report["pattern_scoring_generations"][0]["status"]
        print(f"    completed return passes the gate: {report['valid_count']} valid, {generation}")

    if "scaffold" in state:
        demo.stage(
            "returns-persistence",
            "gate the worker's completed return",
            "rvault-returns",
            "validate",
            worker,
        )

    def persist() -> None:
        stamp = "2026-11-30T13:00:00+00:00"  # the batch completion stamp, after the claim
        report = demo.run(
            "rvault-returns", "persist", db, state["completed"], "--run-date", stamp,
            "--vault-root", vault,
        )  # fmt: skip
        talk = report["talks"][0]
        baseline = report["current_adherence_baseline"]
        print(
            f"    {talk['filename']}: {talk['status']}, score {talk['pattern_score']}, "
            f"receipt {talk['result_payload_sha256'][:12]}; {report['durability_state']}; "
            f"baseline {baseline['raw_score_comparison_status']} "
            f"({baseline['eligible_talk_count']} eligible)"
        )

    if "completed" in state:
        demo.stage(
            "returns-persistence",
            "persist the batch into the tracking database",
            "rvault-returns",
            "persist",
            persist,
        )

    def render() -> None:
        demo.run("rvault-analysis", "write", db)

    demo.stage(
        "analysis-writer", "render the analysis Markdown", "rvault-analysis", "write", render
    )


if __name__ == "__main__":
    raise SystemExit(main())
