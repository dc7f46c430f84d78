"""A speaker's own talks, end to end, on real inputs nobody here wrote (issue 24).

Builds a fresh working directory (``--home DIR``) laid out as the README's
tutorial says (``vault/``, ``site/``, ``decks/`` side by side) from the small
third-party inputs in ``tools/fixtures/speaker-run/`` (see its README for where
each file came from and its licence), and runs three talks through the owners'
console scripts from the directory above the vault, typing every path relative
to that working directory:

- **captions + deck**: a talk on the shownotes site; real captions imported by
  ``rvault-transcript vtt-cleanup``; python-pptx's own test deck extracted by
  ``rvault-pptx extract`` and recorded with ``rvault-db record-deck``;
- **a local recording**: a talk added with ``rvault-db add-talk``; a real
  speech recording (LibriVox clips from pocketsphinx's test data, joined by
  ffmpeg) attached with ``rvault-db attach-media`` and transcribed offline with
  ``rvault-transcript fetch LABEL --audio`` (Whisper tiny.en);
- **a recording made from the deck**: the same deck's slides drawn with Pillow
  into a picture-in-picture video (OpenCV) with real speech as its sound track
  (ffmpeg), attached, transcribed, and read in place by ``rvault-video extract
  --video`` with a verified region, then promoted and registered.

Then the batch: normalize, claim all three, scaffold each return, fill the
worker's part programmatically (the one thing that stands in for a person:
prose and verbatim quotes taken from the talk's own transcript), validate,
persist and ``rvault-analysis write``; ``rvault-db status`` closes the run.
Every writer is a dry run first; the script then runs the ``next_command`` that
dry run printed, never an apply it built itself. Every stdout is one JSON
document and is checked. Exit 0 when every talk is ``processed``.

Usage: ``.venv/bin/python tools/speaker_run.py --home DIR``
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ROOT / "tools" / "fixtures" / "speaker-run"
BIN = Path(sys.executable).parent
MARKER = ".rvault-speaker-run"
DECK, SECOND_DECK = "txt-font-props.pptx", "dml-line.pptx"
CAPTIONS = "netflix_chicas_del_cable.vtt"
CLIP = "sense_and_sensibility_01_austen_64kb-{}.wav"
RUN_ID, BATCH_ID = "speaker-run", "1"
CLAIMED_AT, COMPLETED_AT = "2026-12-01T12:00:00+00:00", "2026-12-01T13:00:00+00:00"
# The recording made from the deck: slides on the left of a 16:9 frame, a
# moving "speaker" on the right; the region is what a person confirms.
FRAME, FPS = (1280, 720), 10
SLIDE_REGION = (0.03125, 0.125, 0.53125, 0.791667)  # 640x480 at (40, 90): the deck is 4:3


@dataclass(frozen=True)
class Talk:
    filename: str
    label: str
    title: str
    date: str


CAPTIONED = Talk("2024-03-12-las-chicas-del-cable.md", "Chicas00001",
                 "Las chicas del cable, subtitulado", "2024-03-12")  # fmt: skip
RECORDED = Talk("2024-06-01-sense-and-sensibility-read-aloud.md", "sense-reading",
                "Sense and Sensibility, Read Aloud", "2024-06-01")  # fmt: skip
FILMED = Talk("2024-09-20-font-properties-on-stage.md", "font-props-stage",
              "Font Properties on Stage", "2024-09-20")  # fmt: skip
TALKS = (CAPTIONED, RECORDED, FILMED)


class StepFailed(Exception):
    pass


@dataclass
class Run:
    """Runs console scripts in the working directory and keeps the command log."""

    home: Path
    log: list[dict[str, Any]] = field(default_factory=list)

    def run(self, script: str, *args: str, expect_ok: bool = True) -> dict[str, Any]:
        argv = [str(BIN / script), *args]
        shown = shlex.join([script, *args])
        print(f"  $ {shown}", flush=True)
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=self.home)
        elapsed = time.perf_counter() - started
        self.log.append({"command": shown, "exit": done.returncode, "seconds": round(elapsed, 2)})
        try:
            document = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise StepFailed(
                f"{shown}: no JSON on stdout (exit {done.returncode}): {done.stderr[-800:]}"
            ) from None
        if expect_ok and (done.returncode != 0 or document.get("ok") is False):
            raise StepFailed(f"{shown}: exit {done.returncode}: {json.dumps(document)[:1200]}")
        print(f"    exit {done.returncode} in {elapsed:.2f}s", flush=True)
        return document

    def write(self, script: str, *args: str) -> dict[str, Any]:
        """A writer's dry run, then exactly the ``next_command`` it printed."""
        dry = self.run(script, *args)
        command = dry.get("next_command")
        if command is None and not dry.get("changes", True):
            print("    nothing to apply (the dry run changes nothing)", flush=True)
            return dry
        if not isinstance(command, str):
            raise StepFailed(f"{script} {args[0]}: the dry run printed no next_command")
        argv = shlex.split(command)
        if argv[0] != script:
            raise StepFailed(f"next_command runs {argv[0]}, not {script}: {command}")
        return self.run(script, *argv[1:])


# --- inputs ------------------------------------------------------------------


def join_clips(clips: list[str], out: Path) -> float:
    """The real clips, back to back, as one 16 kHz mono WAV (ffmpeg concat)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    inputs = [arg for n in clips for arg in ("-i", str(INPUTS / CLIP.format(n)))]
    streams = "".join(f"[{i}:a]" for i in range(len(clips)))
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", *inputs, "-filter_complex",
         f"{streams}concat=n={len(clips)}:v=0:a=1[a]", "-map", "[a]", "-ar", "16000",
         "-ac", "1", str(out)],
        check=True,
    )  # fmt: skip
    return probe_seconds(out)


def probe_seconds(path: Path) -> float:
    done = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
         str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(done.stdout.strip())


def slide_pictures(deck: Path, size: tuple[int, int]) -> list[Any]:
    """Each slide's text boxes drawn where the deck places them (no office suite needed)."""
    from PIL import Image, ImageDraw, ImageFont
    from pptx import Presentation

    presentation = Presentation(str(deck))
    scale = size[0] / presentation.slide_width
    pictures = []
    for number, slide in enumerate(presentation.slides, start=1):
        image = Image.new("RGB", size, (250, 250, 247))
        draw = ImageDraw.Draw(image)
        draw.rectangle((0, 0, size[0], 28), fill=(30, 60, 110))
        for shape in slide.shapes:
            if not shape.has_text_frame or not shape.text_frame.text.strip():
                continue
            x, y = shape.left * scale, shape.top * scale
            for line in shape.text_frame.text.replace("\x0b", "\n").splitlines():
                font = ImageFont.load_default(size=22)
                draw.text((x, y), line, fill=(20, 20, 20), font=font)
                y += 28
        draw.text((size[0] - 70, size[1] - 34), f"{number}/{len(presentation.slides)}",
                  fill=(90, 90, 90), font=ImageFont.load_default(size=18))  # fmt: skip
        pictures.append(image)
    return pictures


def film_deck(deck: Path, speech: Path, out: Path) -> float:
    """A stage recording of the deck: its slides over the speech's length, then muxed."""
    import cv2
    import numpy as np

    width, height = FRAME
    left, top, right, bottom = (
        round(fraction * extent)
        for fraction, extent in zip(SLIDE_REGION, (*FRAME, *FRAME), strict=True)
    )
    pictures = slide_pictures(deck, (right - left, bottom - top))
    frames = math.ceil(probe_seconds(speech) * FPS)
    silent = out.with_suffix(".silent.mp4")
    writer = cv2.VideoWriter(str(silent), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (width, height))
    for index in range(frames):
        picture = pictures[min(index * len(pictures) // frames, len(pictures) - 1)]
        frame = np.full((height, width, 3), (40, 32, 28), np.uint8)
        frame[top:bottom, left:right] = cv2.cvtColor(np.asarray(picture), cv2.COLOR_RGB2BGR)
        sway = int(40 * math.sin(index / 6.0))
        cx, cy = 1010 + sway, 360
        cv2.circle(frame, (cx, cy - 90), 45, (150, 170, 200), -1)
        cv2.rectangle(frame, (cx - 60, cy - 40), (cx + 60, cy + 150), (120, 80, 60), -1)
        writer.write(frame)
    writer.release()
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-i", str(silent), "-i", str(speech),
         "-c:v", "libx264", "-crf", "28", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
         str(out)],
        check=True,
    )  # fmt: skip
    silent.unlink()
    return probe_seconds(out)


def prepare_home(home: Path) -> None:
    """A fresh working directory; an earlier run's is replaced, anything else refused."""
    if home.exists():
        if not (home / MARKER).is_file():
            raise SystemExit(f"speaker_run: {home} exists and is not a speaker-run directory")
        shutil.rmtree(home)
    for folder in ("vault/transcripts", "vault/pptx", "vault/media", "site/_talks", "decks",
                   "worker"):  # fmt: skip
        (home / folder).mkdir(parents=True)
    (home / MARKER).write_text("created by tools/speaker_run.py; safe to delete\n")
    (home / "site" / "_talks" / CAPTIONED.filename).write_text(
        f'---\ntitle: "{CAPTIONED.title}"\nconference: "Meetup de subtítulos"\n'
        f"date: {CAPTIONED.date}\nlayout: talk\n---\n\n# {CAPTIONED.title}\n\n"
        f"Video: [Watch](https://www.youtube.com/watch?v={CAPTIONED.label})\n",
        encoding="utf-8",
    )
    for deck in (DECK, SECOND_DECK):
        shutil.copy2(INPUTS / deck, home / "decks" / deck)
    shutil.copy2(INPUTS / CAPTIONS, home / "vault" / "transcripts" / f"{CAPTIONED.label}.es.vtt")


# --- the talks ---------------------------------------------------------------

DB = "vault/tracking-database.json"


def open_vault(run: Run) -> None:
    run.run("rvault-db", "init", "vault", "--shownotes-source", "site", "--pptx-source", "decks")
    run.run("rvault-db", "init", "vault", "--shownotes-source", "site", "--pptx-source", "decks",
            "--apply", "--expected-sha256", "missing")  # fmt: skip
    run.write("rvault-db", "scan-shownotes", DB)
    for talk in (RECORDED, FILMED):
        run.write("rvault-db", "add-talk", DB, "--title", talk.title, "--conference",
                  "Local Meetup", "--date", talk.date, "--filename", talk.filename,
                  "--delivery-language", "en")  # fmt: skip


def captions_and_deck(run: Run) -> None:
    """Talk 1: the site's talk, its real captions and python-pptx's test deck."""
    talk = CAPTIONED
    fetched = run.run("rvault-transcript", "vtt-cleanup", f"vault/transcripts/{talk.label}.es.vtt",
                      f"vault/transcripts/{talk.label}.txt")  # fmt: skip
    register_fetch(run, talk, fetched)
    record_deck(run, talk, DECK)


def record_deck(run: Run, talk: Talk, deck: str) -> None:
    """The native deck extracted (with OCR) inside the vault, then bound to its talk."""
    extraction = f"vault/pptx/{Path(deck).stem}.extraction.json"
    run.run("rvault-pptx", "extract", f"decks/{deck}", "--source-root", "decks", "--out",
            extraction)  # fmt: skip
    run.write("rvault-db", "record-deck", DB, extraction, "--talk", talk.filename)


def register_fetch(run: Run, talk: Talk, fetched: dict[str, Any]) -> None:
    """The fetch result as printed is the claim register-transcript checks on disk."""
    path = run.home / "worker" / f"{talk.label}.fetch.json"
    path.write_bytes(artifact_bytes(fetched))
    run.write("rvault-db", "register-transcript", DB, f"worker/{path.name}", "--fetch-result",
              "--talk", talk.filename)  # fmt: skip


def transcribe_recording(run: Run, talk: Talk, media: str, seconds: float) -> None:
    run.write("rvault-db", "attach-media", DB, "--talk", talk.filename, media)
    fetched = run.run("rvault-transcript", "fetch", talk.label, "--audio", media, "--out",
                      f"vault/transcripts/{talk.label}.txt", "--existing-source", "unknown",
                      "--duration-seconds", f"{seconds:.2f}")  # fmt: skip
    register_fetch(run, talk, fetched)


def local_recording(run: Run) -> None:
    """Talk 2: a real reading attached as the talk's own recording and transcribed; its deck."""
    media = f"vault/media/{RECORDED.label}.wav"
    seconds = join_clips(["0870", "0880"], run.home / media)
    transcribe_recording(run, RECORDED, media, seconds)
    record_deck(run, RECORDED, SECOND_DECK)


def filmed_deck(run: Run) -> None:
    """Talk 3: the deck filmed on stage; slides recovered from the recording in place."""
    talk = FILMED
    speech = run.home / "worker" / "stage-speech.wav"
    join_clips(["0890", "0920", "0930"], speech)
    media = f"vault/media/{talk.label}.mp4"
    seconds = film_deck(run.home / "decks" / DECK, speech, run.home / media)
    transcribe_recording(run, talk, media, seconds)
    outdir = f"vault/slides-rebuild/{talk.label}"
    region = ",".join(f"{v:.6f}" for v in SLIDE_REGION)
    manifest = run.run("rvault-video", "extract", media, outdir, talk.label, "--vault-root",
                       "vault", "--fps", "2", "--region", region,
                       "--region-verified")  # fmt: skip
    pages = manifest["unique_frame_count"]
    print(f"    {pages} distinct slide(s) recovered; review_required={manifest['review_required']}")
    path = f"{outdir}/{talk.label}.video-extraction.json"
    run.run("rvault-video", "validate", path, "--vault-root", "vault", "--video-id", talk.label,
            "--require-trusted")  # fmt: skip
    promoted = run.run("rvault-video", "promote", path, "--vault-root", "vault")
    run.write("rvault-db", "register-slides", DB, f"vault/{promoted['slides_local_path']}",
              "--talk", talk.filename)  # fmt: skip


# --- the batch ---------------------------------------------------------------


def claim_batch(run: Run) -> None:
    run.write("rvault-db", "queue", DB, "normalize")
    fingerprint = run.run("rvault-returns", "catalog")["fingerprint"]
    run.write("rvault-db", "queue", DB, "claim", "--run-id", RUN_ID, "--batch-id", BATCH_ID,
              "--now", CLAIMED_AT, "--talk", *(t.filename for t in TALKS),
              "--catalog-fingerprint", fingerprint)  # fmt: skip


def scaffold_returns(run: Run) -> None:
    for talk in TALKS:
        skeleton = run.run("rvault-returns", "scaffold", "--db", DB, "--talk", talk.filename,
                           "--vault-root", "vault")  # fmt: skip
        path = run.home / "worker" / f"{talk.label}.scaffold.json"
        path.write_bytes(artifact_bytes(skeleton.get("return", skeleton)))


# --- the worker's part (the one stand-in for a person) --------------------------

# What a worker writes about each talk. The prose was written for these inputs;
# every quote is taken verbatim from the talk's own transcript at run time.
PROSE = {
    CAPTIONED: (
        "The episode opens with a narrated thesis about women in 1928 and keeps returning "
        "to it through short scenes, so the spoken argument is carried by repetition of one "
        "claim (freedom was out of reach) rather than by a list of points.",
        "The captions carry many voices and no announced structure; a talk built on this "
        "material would need an explicit outline and a closing that names what the audience "
        "should take away, instead of ending on a scene.",
    ),
    RECORDED: (
        "A short reading that sets up a character by weighing him: the narrator states a "
        "judgement, qualifies it, and then turns it with a conditional, which gives the "
        "passage a clear claim, counterpoint and resolution in under a minute.",
        "As a talk the reading gives no context before it starts and stops mid-chapter; an "
        "opening sentence saying why this passage was chosen, and a closing one saying what "
        "it shows, would let listeners follow the argument instead of the story.",
    ),
    FILMED: (
        "The slides walk through one property per slide (italic, size, bold, underline, "
        "language) while the spoken track reads a passage, so the visual sequence is "
        "orderly and consistent but unrelated to what is being said.",
        "Slides and speech never meet: each slide should carry the point being spoken, and "
        "the bare property labels would read better as one example sentence per slide with "
        "the property applied to it.",
    ),
}
# Applicability a worker judged for every entry the scaffold's gate asks about:
# pattern -> (result, condition_id or None, source, why).
ASSESSMENTS = {
    "dead-demo": ("not_applicable", "no-demo-attempted", "transcript",
                  "Nothing is demonstrated live; the recording is speech only."),
    "live-demo-rehearsed": ("not_applicable", "no-demo-planned", "transcript",
                            "No demonstration segment is planned in the talk."),
    "coda": ("not_applicable", "no-closing-captured", "transcript",
             "The recording stops before the speaker reaches the end of the talk."),
    "dual-headed-monster": ("not_applicable", "single-presenter", "transcript",
                            "One voice narrates throughout."),
    "crawling-credits": ("not_applicable", "no-borrowed-material", "static_slides",
                         "The slides carry only the speaker's own text, nothing borrowed."),
    "floodmarks": ("applicable", None, "static_slides",
                   "The speaker chose the plain template; no event template was required."),
}  # fmt: skip


def transcript_quote(run: Run, talk: Talk) -> str:
    """The first words of the transcript's first full line, verbatim."""
    text = (run.home / "vault" / "transcripts" / f"{talk.label}.txt").read_text("utf-8")
    line = next(line for line in text.splitlines() if len(line.split()) >= 4)
    return " ".join(line.split()[:12])


def citation(run: Run, talk: Talk, source: str, pages: int) -> dict[str, Any]:
    if source == "transcript":
        return {"source": "transcript", "channel": "transcript",
                "quote": transcript_quote(run, talk)}  # fmt: skip
    return {
        "source": source,
        "channel": "slide_sequence",
        "slide_numbers": list(range(1, pages + 1)),
    }


def fill_return(
    run: Run, talk: Talk, scaffold: dict[str, Any], needed: list[str]
) -> dict[str, Any]:
    """The scaffold completed: prose and the applicability the gate asks for."""
    filled = json.loads(json.dumps(scaffold))
    filled["rhetoric_notes"], filled["areas_for_improvement"] = PROSE[talk]
    observations = filled["pattern_observations"]
    pages = next((r["page_ranges"][-1][1] for r in observations["source_inspection"]
                  if "page_ranges" in r), 0)  # fmt: skip
    observations["applicability_assessments"] = [
        {"pattern_id": pattern, "result": ASSESSMENTS[pattern][0],
         **({"condition_id": ASSESSMENTS[pattern][1]} if ASSESSMENTS[pattern][1] else {}),
         "evidence_source": ASSESSMENTS[pattern][2], "evidence": ASSESSMENTS[pattern][3],
         "evidence_citations": [citation(run, talk, ASSESSMENTS[pattern][2], pages)]}
        for pattern in sorted(needed)
    ]  # fmt: skip
    return filled


def complete_returns(run: Run) -> None:
    """Each member checked alone (as a worker would), filled, then the batch gated."""
    returns = []
    for talk in TALKS:
        scaffold = f"worker/{talk.label}.scaffold.json"
        refused = run.run("rvault-returns", "validate", scaffold, "--db", DB, "--vault-root",
                          "vault", "--member", talk.filename, expect_ok=False)  # fmt: skip
        errors = [e for r in refused["returns"] for e in r["errors"]]
        needed = [e["message"].split()[0] for e in errors if e["code"] == "applicability_missing"]
        print(f"    {talk.label}: {len(errors)} issue(s) until filled; assessments for {needed}")
        returns.append(fill_return(run, talk, json.loads((run.home / scaffold).read_text()),
                                   needed))  # fmt: skip
    (run.home / "worker" / "returns.json").write_bytes(artifact_bytes(returns))
    report = run.run("rvault-returns", "validate", "worker/returns.json", "--db", DB,
                     "--vault-root", "vault")  # fmt: skip
    print(f"    {report['valid_count']} of {report['return_count']} returns valid")


def persist_and_render(run: Run) -> None:
    applied = run.write("rvault-returns", "persist", DB, "worker/returns.json", "--run-date",
                        COMPLETED_AT, "--vault-root", "vault")  # fmt: skip
    for talk in applied["talks"]:
        print(f"    {talk['filename']}: {talk['status']}, score {talk['pattern_score']}")
    written = run.run("rvault-analysis", "write", "worker/returns.json", "vault/analyses",
                      "--db", DB)  # fmt: skip
    print(f"    analyses: {[entry['path'] for entry in written.get('written', [])]}")
    site = run.run("rvault-analysis", "site", "vault/report", "--db", DB, "--vault-root",
                   "vault", "--returns", "worker/returns.json")  # fmt: skip
    print(f"    vault report: {len(site.get('written', site.get('pages', [])))} file(s)")


def final_status(run: Run) -> None:
    """The owner's status view: every talk, its evidence and its next action."""
    status = run.run("rvault-db", "status", DB, "--format", "json")
    for talk in status["talks"]:
        evidence = {key: (talk[key] or {}).get("state", (talk[key] or {}).get("status"))
                    for key in ("transcript", "media", "deck", "slides", "video")}  # fmt: skip
        print(f"    {talk['filename']}: {talk['status']}, next {talk['next_action']['code']}, "
              f"{evidence}, issues {talk['evidence_issues']}")  # fmt: skip
    (run.home / "worker" / "status.json").write_bytes(artifact_bytes(status))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home",
        type=Path,
        required=True,
        help="working directory to create (it will hold vault/, site/, decks/)",
    )
    args = parser.parse_args(argv)
    run = Run(args.home.resolve())
    prepare_home(run.home)
    started = time.perf_counter()
    try:
        for step in (
            open_vault,
            captions_and_deck,
            local_recording,
            filmed_deck,
            claim_batch,
            scaffold_returns,
            complete_returns,
            persist_and_render,
            final_status,
        ):
            print(f"\n[{step.__name__}]", flush=True)
            step(run)
    except StepFailed as failure:
        print(f"\nSPEAKER RUN FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"\n{len(run.log)} commands in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
