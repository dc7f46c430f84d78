"""`make demo`: the main job end to end, on an embedded sample vault.

Builds a fresh demo directory (``./demo-vault`` by default, ``--vault DIR`` or
``make demo VAULT=DIR`` to choose) from ``demo/``: a small Jekyll shownotes
site, the first talk's captions, and media generated here by
``demo/sample_media.py`` (a deck, a picture-in-picture recording, espeak-ng
speech). Then it drives every owner's console script in pipeline order,
exactly as a speaker or an agent would: each write is a dry run first and an
``--apply`` bound to the SHA-256 that dry run reported. Each stage prints what
it did, its outcome and its time. A stage whose command does not exist in
this checkout is reported as "not built yet" and never faked; a stage that
fails stops the demo with exit 1. The demo ends with what the vault now holds
and the paths of the rendered analysis and of the vault report.

The only thing that stands in for a person is the AI worker's prose:
``demo/sample-worker/analysis.json`` (sample worker output, written by hand
for the sample talk) fills the return skeleton the toolkit prints.

Usage: ``.venv/bin/python tools/demo.py [--vault DIR]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "demo"))
import sample_media  # noqa: E402  (the demo's own generator, beside its data)

SAMPLE = ROOT / "demo" / "sample-vault"
WORKER = ROOT / "demo" / "sample-worker" / "analysis.json"
BIN = Path(sys.executable).parent
MARKER = ".rvault-demo"
TALK = "2025-05-14-the-quiet-slide.md"
YOUTUBE_ID = "Qu1etSl1de0"
SPOKEN_TALK, SPOKEN_ID = "2024-10-02-arguments-that-land.md", "ArgLand2024"
RUN_ID, BATCH_ID = "demo-run", "1"
CLAIMED_AT, COMPLETED_AT = "2026-11-30T12:00:00+00:00", "2026-11-30T13:00:00+00:00"


class StageFailed(Exception):
    pass


@dataclass
class Demo:
    """Runs owner console scripts in the demo directory and keeps the stage ledger."""

    home: Path
    built: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def vault(self) -> Path:
        return self.home / "vault"

    @property
    def db(self) -> Path:
        return self.vault / "tracking-database.json"

    def has(self, script: str, command: str) -> bool:
        exe = BIN / script
        if not exe.exists():
            return False
        result = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=False)
        return f"    {command} " in result.stdout or f"    {command}\n" in result.stdout

    def run(self, script: str, *args: str | Path, expect_ok: bool = True) -> dict[str, Any]:
        argv = [str(BIN / script), *map(str, args)]
        shown = " ".join([script, *(self.short(a) for a in map(str, args))])
        print(f"  $ {shown}", flush=True)
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=self.home)
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

    def apply(self, script: str, *args: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
        """The one apply protocol: dry run, then apply bound to the hash it reported."""
        dry = self.run(script, *args)
        applied = self.run(script, *args, "--apply", "--expected-sha256", dry["input_sha256"])
        return dry, applied

    def stage(
        self, owner: str, title: str, script: str, command: str, body: Callable[[], None]
    ) -> None:
        print(f"\n[{owner}] {title}", flush=True)
        if not self.has(script, command):
            print(f"  not built yet: `{script} {command}` does not exist in this checkout")
            self.missing.append(f"{owner}: {title}")
            return
        started = time.perf_counter()
        body()
        self.built.append(f"{owner}: {title} ({time.perf_counter() - started:.1f}s)")

    def short(self, arg: str) -> str:
        return arg.replace(str(self.home) + "/", "")


# --- the sample --------------------------------------------------------------


def prepare_home(home: Path) -> None:
    """A fresh demo directory; an earlier demo's is replaced, anything else is refused."""
    if home.exists():
        if not (home / MARKER).is_file():
            raise SystemExit(
                f"demo: {home} exists and is not a demo directory; choose another VAULT"
            )
        shutil.rmtree(home)
    home.mkdir(parents=True)
    (home / MARKER).write_text("created by tools/demo.py; safe to delete\n")
    shutil.copytree(SAMPLE / "shownotes", home / "shownotes")
    (home / "vault" / "transcripts").mkdir(parents=True)
    shutil.copy2(SAMPLE / "transcripts" / f"{YOUTUBE_ID}.en.vtt", home / "vault" / "transcripts")
    (home / "worker").mkdir()


def complete_with_worker_analysis(scaffold: Path, out: Path) -> Path:
    """Fill the skeleton with the sample worker's analysis (demo/sample-worker).

    This stands in for the AI worker: the analysis text, the detection and the
    applicability assessments were written for the sample talk and quote its
    transcript verbatim. The toolkit itself never writes analysis content.
    """
    analysis = json.loads(WORKER.read_text())
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


def wav_seconds(path: Path) -> float:
    with wave.open(str(path)) as audio:
        return audio.getnframes() / audio.getframerate()


# --- the pipeline ------------------------------------------------------------


def vault_stages(demo: Demo) -> None:
    vault, db = demo.vault, demo.db

    def init() -> None:
        sample_media.make_deck(demo.home / "decks" / "quiet-slide.pptx")
        args = (vault, "--shownotes-source", demo.home / "shownotes",
                "--pptx-source", demo.home / "decks")  # fmt: skip
        dry = demo.run("rvault-db", "init", *args)
        applied = demo.run("rvault-db", "init", *args, "--apply", "--expected-sha256", "missing")
        print(f"    dry run: {len(dry.get('changes', []))} change(s); "
              f"applied: {applied['durability_state']}")  # fmt: skip

    demo.stage("tracking-db", "initialize the vault", "rvault-db", "init", init)

    def scan() -> None:
        _, applied = demo.apply("rvault-db", "scan-shownotes", db)
        print(f"    shownotes: {applied['counts']}, {applied['durability_state']}")

    demo.stage("tracking-db", "import talks from the shownotes site", "rvault-db",
               "scan-shownotes", scan)  # fmt: skip

    def migrate() -> None:
        report = demo.run("rvault-db", "migrate", db)
        print(f"    schema {report['from_root_schema_version']} -> "
              f"{report['to_root_schema_version']}: {len(report['changes'])} change(s), "
              f"changed={report['changed']}")  # fmt: skip

    demo.stage("tracking-db", "check the migration (a no-op on a new vault)", "rvault-db",
               "migrate", migrate)  # fmt: skip


def transcript_stages(demo: Demo) -> None:
    vault, db = demo.vault, demo.db

    def captions() -> None:
        vtt = vault / "transcripts" / f"{YOUTUBE_ID}.en.vtt"
        out = vault / "transcripts" / f"{YOUTUBE_ID}.txt"
        result = demo.run("rvault-transcript", "vtt-cleanup", vtt, out)
        print(f"    {result['word_count']} words, timing: {result['timing_status']['code']}")
        verified = demo.run("rvault-transcript", "verify", out)
        print(f"    verify: ok={verified.get('ok')}")

    demo.stage("transcript", "import the first talk's captions (timing + quality receipts)",
               "rvault-transcript", "vtt-cleanup", captions)  # fmt: skip

    def whisper() -> None:
        speech = vault / "media" / f"{SPOKEN_ID}.wav"  # the speaker's own recording, in the vault
        speech.parent.mkdir(exist_ok=True)
        sample_media.make_speech(speech)
        # Recorded as the talk's local media (SHA-256, size, probed duration), so every
        # reader can bind the Whisper receipts to these exact bytes.
        _, attached = demo.apply("rvault-db", "attach-media", db, "--talk", SPOKEN_TALK, speech)
        print(f"    attached {speech.name} to {SPOKEN_TALK}: {attached['durability_state']}")
        out = vault / "transcripts" / f"{SPOKEN_ID}.txt"
        result = demo.run(
            "rvault-transcript", "fetch", SPOKEN_ID, "--audio", speech, "--out", out,
            "--existing-source", "unknown", "--duration-seconds", f"{wav_seconds(speech):.2f}",
        )  # fmt: skip
        print(f"    Whisper ({result.get('language')}): {result.get('word_count')} words, "
              f"source {result.get('transcript_source')}")  # fmt: skip
        # The fetch result as printed is the claim the database owner checks
        # against the receipts on disk (no path or source typed again).
        fetched = demo.home / "media" / f"{SPOKEN_ID}.fetch-result.json"
        fetched.parent.mkdir(exist_ok=True)
        fetched.write_bytes(artifact_bytes(result))
        _, applied = demo.apply("rvault-db", "register-transcript", db, fetched,
                                "--fetch-result", "--talk", SPOKEN_TALK)  # fmt: skip
        print(f"    registered for {SPOKEN_TALK} from the fetch result: "
              f"{applied['durability_state']}")  # fmt: skip

    demo.stage("transcript", "transcribe the second talk's speech with local Whisper",
               "rvault-transcript", "fetch", whisper)  # fmt: skip


def slide_stages(demo: Demo) -> None:
    vault, db = demo.vault, demo.db

    def deck() -> None:
        out = vault / "pptx" / "quiet-slide.extraction.json"
        out.parent.mkdir(exist_ok=True)
        decks = demo.home / "decks"
        result = demo.run("rvault-pptx", "extract", decks / "quiet-slide.pptx",
                          "--out", out, "--source-root", decks)  # fmt: skip
        extraction = json.loads(out.read_text())
        ocr = sum(len(s["ocr_text"].split()) for s in extraction["per_slide_visual"])
        print(f"    extraction v{result['schema_version']}: {result['slide_count']} slides, "
              f"{ocr} word(s) recovered by OCR -> {demo.short(str(out))}")  # fmt: skip
        _, applied = demo.apply("rvault-db", "record-deck", db, out, "--talk", TALK)
        print(f"    pptx_catalog receipt recorded: {applied['durability_state']}")

    demo.stage("pptx-evidence", "extract the native deck (with OCR) and record it",
               "rvault-pptx", "extract", deck)  # fmt: skip

    def video() -> None:
        workdir = vault / "slides-rebuild" / YOUTUBE_ID
        sample_media.make_video(workdir / f"{YOUTUBE_ID}.mp4")
        region = ",".join(f"{v:.5f}" for v in sample_media.SLIDE_REGION)
        manifest = demo.run(
            "rvault-video", "extract", workdir / f"{YOUTUBE_ID}.mp4", workdir, YOUTUBE_ID,
            "--vault-root", vault, "--region", region, "--region-verified",
        )  # fmt: skip
        print(f"    {manifest['unique_frame_count']} distinct slides "
              f"(expected {len(sample_media.SLIDES)}); review_required="
              f"{manifest['review_required']}")  # fmt: skip
        path = workdir / f"{YOUTUBE_ID}.video-extraction.json"
        verdict = demo.run("rvault-video", "validate", path, "--vault-root", vault,
                           "--video-id", YOUTUBE_ID, "--require-trusted")  # fmt: skip
        print(f"    manifest verdict: ok={verdict.get('ok')}, trusted={verdict.get('trusted')}")
        demo.state["manifest"] = path

    demo.stage("video-extraction", "recover slides from the recording (verified region)",
               "rvault-video", "extract", video)  # fmt: skip

    def promote() -> None:
        result = demo.run("rvault-video", "promote", demo.state["manifest"],
                          "--vault-root", vault)  # fmt: skip
        local = result["slides_local_path"]
        _, applied = demo.apply("rvault-db", "register-slides", db, vault / local, "--talk", TALK)
        print(f"    {local} promoted and recorded: {applied['durability_state']}")

    if "manifest" in demo.state:
        demo.stage("video-extraction", "promote the trusted slide PDF and record it",
                   "rvault-video", "promote", promote)  # fmt: skip


def batch_stages(demo: Demo) -> None:
    vault, db = demo.vault, demo.db

    def normalize() -> None:
        dry, applied = demo.apply("rvault-db", "queue", db, "normalize")
        print(f"    {dry['change_count']} capability change(s); {applied['durability_state']}")

    demo.stage("tracking-db", "derive source capabilities", "rvault-db", "queue", normalize)

    def catalog() -> None:
        result = demo.run("rvault-returns", "catalog")
        demo.state["fingerprint"] = result["fingerprint"]
        print(f"    {result['entry_count']} entries, fingerprint {result['fingerprint'][:12]}")

    demo.stage("returns-persistence", "fingerprint the pattern catalog", "rvault-returns",
               "catalog", catalog)  # fmt: skip

    def claim() -> None:
        _, applied = demo.apply(
            "rvault-db", "queue", db, "claim", "--run-id", RUN_ID, "--batch-id", BATCH_ID,
            "--now", CLAIMED_AT, "--talk", TALK,
            "--catalog-fingerprint", demo.state["fingerprint"],
        )  # fmt: skip
        members = [m.get("filename", m) for m in applied.get("members", [])]
        print(f"    claimed {members} as {RUN_ID}/{BATCH_ID}; {applied['durability_state']}")

    demo.stage("tracking-db", "claim the talk for a worker", "rvault-db", "queue", claim)

    def scaffold() -> None:
        skeleton = demo.run("rvault-returns", "scaffold", "--db", db, "--talk", TALK,
                            "--vault-root", vault)  # fmt: skip
        path = demo.home / "worker" / "return.scaffold.json"
        path.write_bytes(artifact_bytes(skeleton.get("return", skeleton)))
        demo.state["scaffold"] = path
        refused = demo.run("rvault-returns", "validate", path, "--db", db, "--vault-root", vault,
                           expect_ok=False)  # fmt: skip
        codes = sorted({e["code"] for r in refused.get("returns", []) for e in r["errors"]})
        print(f"    skeleton -> {demo.short(str(path))}; refused until a worker fills it: {codes}")

    demo.stage("returns-persistence", "scaffold the worker return", "rvault-returns",
               "scaffold", scaffold)  # fmt: skip

    def validate() -> None:
        path = complete_with_worker_analysis(demo.state["scaffold"],
                                             demo.home / "worker" / "returns.json")  # fmt: skip
        report = demo.run("rvault-returns", "validate", path, "--db", db, "--vault-root", vault)
        demo.state["returns"] = path
        generation = report["pattern_scoring_generations"][0]["status"]
        print(f"    sample worker output passes the gate: {report['valid_count']} valid, "
              f"scoring generation {generation}")  # fmt: skip

    if "scaffold" in demo.state:
        demo.stage("returns-persistence", "gate the worker's completed return",
                   "rvault-returns", "validate", validate)  # fmt: skip

    def persist() -> None:
        dry, report = demo.apply("rvault-returns", "persist", db, demo.state["returns"],
                                 "--run-date", COMPLETED_AT, "--vault-root", vault)  # fmt: skip
        print(f"    dry run: would close {len(dry['claims_closed'])} claim(s); "
              f"applied: {report['durability_state']}")  # fmt: skip
        talk = report["talks"][0]
        baseline = report["current_adherence_baseline"]
        print(f"    {talk['filename']}: {talk['status']}, score {talk['pattern_score']}, "
              f"receipt {talk['result_payload_sha256'][:12]}; {report['durability_state']}; "
              f"baseline {baseline['raw_score_comparison_status']} "
              f"({baseline['eligible_talk_count']} eligible)")  # fmt: skip
        demo.state["persisted"] = True

    if "returns" in demo.state:
        demo.stage("returns-persistence", "persist the batch into the tracking database",
                   "rvault-returns", "persist", persist)  # fmt: skip


def render_stages(demo: Demo) -> None:
    vault, db = demo.vault, demo.db

    def write() -> None:
        report = demo.run("rvault-analysis", "write", demo.state["returns"],
                          vault / "analyses", "--db", db)  # fmt: skip
        written = [entry["path"] for entry in report.get("written", [])]
        demo.state["analyses"] = written
        print(f"    written: {written}; skipped: {report.get('skipped', [])}")

    if demo.state.get("persisted"):
        demo.stage("analysis-writer", "render the receipt-bound analysis Markdown",
                   "rvault-analysis", "write", write)  # fmt: skip

    def site() -> None:
        out = vault / "report"  # inside the vault: the site refuses OUTDIR elsewhere
        returns = ["--returns", demo.state["returns"]] if "returns" in demo.state else []
        report = demo.run("rvault-analysis", "site", out, "--db", db, "--vault-root", vault,
                          *returns)  # fmt: skip
        demo.state["site"] = out / "index.html"
        print(f"    {len(report.get('written', report.get('pages', [])))} file(s) -> "
              f"{demo.short(str(out))}/index.html")  # fmt: skip

    demo.stage("analysis-writer", "render the vault report (static HTML)", "rvault-analysis",
               "site", site)  # fmt: skip


def print_vault(demo: Demo) -> None:
    """What the vault now holds, through the owner's status view."""
    if not demo.has("rvault-db", "status"):
        return
    print("\nThe vault now holds")
    result = subprocess.run(
        [str(BIN / "rvault-db"), "status", str(demo.db), "--format", "table"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    print("  " + result.stdout.rstrip().replace("\n", "\n  "))
    for path in demo.state.get("analyses", []):
        print(f"  analysis: {demo.vault / path}")
    if "site" in demo.state:
        print(f"  vault report: {demo.state['site']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "demo-vault",
                        help="demo directory to create (default ./demo-vault)")  # fmt: skip
    args = parser.parse_args(argv)
    demo = Demo(args.vault.resolve())
    prepare_home(demo.home)
    print(f"rhetoric-vault demo in {demo.home} (vault root {demo.vault})")
    try:
        for stages in (vault_stages, transcript_stages, slide_stages, batch_stages,
                       render_stages):  # fmt: skip
            stages(demo)
    except StageFailed as failure:
        print(f"\nDEMO FAILED: {failure}", file=sys.stderr)
        return 1
    print("\nStages")
    for line in demo.built:
        print(f"  done           {line}")
    for line in demo.missing:
        print(f"  not built yet  {line}")
    print_vault(demo)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
