"""A small generated archive: talks with a deck and a recording with speech, none acquired.

What an archive import looks like before ``rvault-batch run``: every talk is
registered (title, conference, date, its YouTube URL, its deck under the
configured deck folder), and its recording sits at the contract download
path ``slides-rebuild/{id}/{id}.mp4``, but no transcript, extraction or
manifest exists yet. Everything is real and small: decks written by
python-pptx (two text slides, so no OCR), recordings rendered by the
video-extraction synthetic renderer (two slides, 2.5 s each, 320x180) with
espeak-ng speech muxed in by FFmpeg, and the database built by the owner's
own commands (``rvault-db init``, one ``rvault-db sources`` plan).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pptx import Presentation

from rvault_testkit.video_extraction.synthetic import (
    Slide,
    TalkSpec,
    timeline,
    write_mp4v,
)

TOPICS = (
    "storytelling",
    "pauses",
    "questions",
    "humour",
    "contrast",
    "repetition",
    "callbacks",
    "silence",
)


@dataclass(frozen=True)
class ArchiveTalk:
    filename: str
    video_id: str
    deck: str
    topic: str


@dataclass(frozen=True)
class Archive:
    home: Path
    vault: Path
    database: Path
    decks: Path
    talks: tuple[ArchiveTalk, ...]


def _tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _run_json(*command: str | Path, stdin: bytes | None = None) -> dict:
    done = subprocess.run([str(c) for c in command], input=stdin, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:2]} exited {done.returncode}: {done.stdout!r}")
    return json.loads(done.stdout)


def _apply(*command: str | Path, stdin: bytes | None = None) -> dict:
    """The owner's dry run, then the apply bound to the digest it printed."""
    dry = _run_json(*command, stdin=stdin)
    return _run_json(*command, "--apply", "--expected-sha256", dry["input_sha256"], stdin=stdin)


def write_deck(path: Path, topic: str, number: int) -> None:
    prs = Presentation()
    for index, title in enumerate((f"Talk {number}: {topic}", f"Why {topic} works")):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = f"Point {index + 1} about {topic}"
        slide.notes_slide.notes_text_frame.text = f"Say something about {topic}."
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def write_recording(path: Path, topic: str, number: int, seconds_per_slide: float = 2.5) -> None:
    """Two slides on screen and a spoken sentence about ``topic`` (H.264-free: mp4v + AAC)."""
    for tool in ("espeak-ng", "ffmpeg"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is required to generate an archive recording")
    path.parent.mkdir(parents=True, exist_ok=True)
    slides = [
        Slide(f"T{number}A", f"Talk {number}", (f"about {topic}",), background=number % 6),
        Slide(f"T{number}B", f"Why {topic}", ("it works",), background=(number + 3) % 6),
    ]
    video = path.with_suffix(".video.mp4")
    speech = path.with_suffix(".speech.wav")
    write_mp4v(TalkSpec(segments=timeline(slides, seconds_per_slide), seed=number), video)
    sentence = f"Good morning. Today we talk about {topic}. Thank you for listening."
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(speech), sentence], check=True)
    subprocess.run(
        ["ffmpeg", "-y", "-loglevel", "error", "-i", str(video), "-i", str(speech),
         "-c:v", "copy", "-c:a", "aac", "-b:a", "48k", "-shortest", str(path)],
        check=True,
    )  # fmt: skip
    video.unlink()
    speech.unlink()


def make_archive(home: Path, count: int) -> Archive:
    """``count`` talks registered in a new vault under ``home``; nothing acquired yet."""
    vault, decks = home / "vault", home / "decks"
    vault.mkdir(parents=True)
    decks.mkdir(parents=True)
    database = vault / "tracking-database.json"
    _run_json(_tool("rvault-db"), "init", vault, "--pptx-source", decks,
              "--apply", "--expected-sha256", "missing")  # fmt: skip
    talks = []
    mutations: list[dict] = []
    for number in range(1, count + 1):
        topic = TOPICS[(number - 1) % len(TOPICS)]
        talk = ArchiveTalk(
            filename=f"2025-01-{number:02d}-archive-talk-{number}.md",
            video_id=f"ArchTalk{number:03d}",
            deck=f"talk-{number:02d}.pptx",
            topic=topic,
        )
        talks.append(talk)
        write_deck(decks / talk.deck, topic, number)
        write_recording(
            vault / "slides-rebuild" / talk.video_id / f"{talk.video_id}.mp4", topic, number
        )
        missing = {"$missing": True}
        record = {"schema_version": 5, "filename": talk.filename, "title": f"On {topic}",
                  "conference": "Archive Conf", "date": f"2025-01-{number:02d}",
                  "status": "pending"}  # fmt: skip
        mutations += [
            {"kind": "add_talk", "expect": missing, "record": record},
            {"kind": "set_video_url", "filename": talk.filename, "expect": missing,
             "value": f"https://www.youtube.com/watch?v={talk.video_id}"},
            {"kind": "register_pptx", "filename": talk.filename, "expect": missing,
             "value": talk.deck},
        ]  # fmt: skip
    plan = json.dumps({"schema_version": 1, "mutations": mutations}).encode()
    _apply(_tool("rvault-db"), "sources", database, "-", stdin=plan)
    return Archive(home, vault, database, decks, tuple(talks))
