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
DECK = "txt-font-props.pptx"
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
    shutil.copy2(INPUTS / DECK, home / "decks" / DECK)
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
    extraction = f"vault/pptx/{Path(DECK).stem}.extraction.json"
    run.run("rvault-pptx", "extract", f"decks/{DECK}", "--source-root", "decks", "--out",
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
    """Talk 2: a real reading, attached as the talk's own recording and transcribed."""
    media = f"vault/media/{RECORDED.label}.wav"
    seconds = join_clips(["0870", "0880"], run.home / media)
    transcribe_recording(run, RECORDED, media, seconds)


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
        for step in (open_vault, captions_and_deck, local_recording, filmed_deck):
            print(f"\n[{step.__name__}]", flush=True)
            step(run)
    except StepFailed as failure:
        print(f"\nSPEAKER RUN FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"\n{len(run.log)} commands in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
