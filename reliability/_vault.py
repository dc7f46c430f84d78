"""A small real vault built with the owner tools, once per test process, copied per caller.

Not a test module. Every artifact is produced by the owner's console script
exactly as the demo does (tools/demo.py): the database is initialized and
filled from the embedded shownotes sample, a transcript bundle comes from the
sample VTT, a deck is generated with python-pptx and extracted, and a short
screencast generated with OpenCV is extracted into PDFs and a manifest.

A build runs six owner commands and renders a video (2-3 s, more under load),
and about a dozen tests start from one, so each test process (xdist worker)
builds each kind once into a template and every caller gets a copy
(``_copied``). Two of the tools record absolute paths (the database's
shownotes source, the video manifest's files); the copy rewrites exactly those
to where it lands, as a build there would have written them, and refuses if
the template path shows up in any other file.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _harness import command, run

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "demo" / "sample-vault"
VIDEO_ID = "Qu1etSl1de0"
DB = "tracking-database.json"
TALK = "2025-05-14-the-quiet-slide.md"


def ok(argv: list[str]) -> dict[str, Any]:
    done = run(argv)
    assert done.returncode == 0, (argv, done.stdout, done.stderr[-2000:])
    return done.document


def init_plan(vault: Path) -> dict[str, Any]:
    shownotes = {
        "enabled": True,
        "source": {
            "type": "local_jekyll",
            "path_or_url": str(vault / "shownotes"),
            "talks_subdir": "_talks",
        },
    }
    return {
        "schema_version": 1,
        "mutations": [{"kind": "initialize_database", "config": {"shownotes": shownotes}}],
    }


def apply_db(*args: str | Path) -> dict[str, Any]:
    """Dry-run then apply a hash-bound rvault-db command."""
    dry = ok(command("rvault-db", *args))
    return ok(command("rvault-db", *args, "--apply", "--expected-sha256", dry["input_sha256"]))


def make_deck(path: Path, titles: list[str]) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title in titles:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = f"about {title.lower()}"
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def make_video(path: Path, titles: list[str], seconds: int = 2, fps: int = 4) -> None:
    import cv2
    import numpy as np

    width, height = 320, 180
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
    for number, title in enumerate(titles):
        frame = np.full((height, width, 3), 240 - 30 * number, np.uint8)
        cv2.putText(frame, title, (20, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
        cv2.rectangle(frame, (10 + 40 * number, 130), (60 + 40 * number, 170), (0, 0, 200), -1)
        for _ in range(seconds * fps):
            writer.write(frame)
    writer.release()


def video_argv(vault: Path, video: Path) -> list[str]:
    workdir = vault / "slides-rebuild" / VIDEO_ID
    return command(
        "rvault-video",
        "extract",
        video,
        workdir,
        VIDEO_ID,
        "--vault-root",
        vault,
        "--region",
        "0,0,1,1",
        "--region-verified",
        "--force",  # crash and hostile runs replace the base vault's manifest
    )


#: kind -> the template's root folder (its vault is ``root / "vault"``), per test process.
_TEMPLATES: dict[str, Path] = {}


def _copied(kind: str, builder: Callable[[Path], Path], vault: Path) -> Path:
    """``builder``'s vault, built once per process, copied to ``vault`` (must not exist).

    The template's siblings of its vault (a deck, a plan, ``returns.json``)
    land beside ``vault`` as they would beside a fresh build. Every occurrence
    of the template's vault path (JSON files only) becomes ``vault``'s.
    """
    if kind not in _TEMPLATES:
        root = Path(tempfile.mkdtemp(prefix=f"rvault-reliability-{kind}-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        builder(root / "vault")
        _TEMPLATES[kind] = root
    root = _TEMPLATES[kind]
    old = json.dumps(str(root / "vault"))[1:-1].encode()
    new = json.dumps(str(vault))[1:-1].encode()
    vault.parent.mkdir(parents=True, exist_ok=True)
    for entry in root.iterdir():
        target = vault if entry.name == "vault" else vault.parent / entry.name
        if entry.is_dir():  # the vault must be new; a sibling folder may be there already
            shutil.copytree(entry, target, symlinks=True, dirs_exist_ok=target != vault)
        else:
            shutil.copy2(entry, target)
        for path in [target] if target.is_file() else target.rglob("*"):
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if old in data:
                assert path.suffix == ".json", f"{path} records the template's path"
                path.write_bytes(data.replace(old, new))
    return vault


def build(vault: Path) -> Path:
    """The base vault in ``vault`` (must not exist), as ``_build`` makes it there."""
    return _copied("base", _build, vault)


def _build(vault: Path) -> Path:
    """Build the base vault in ``vault`` (must not exist) and return it."""
    shutil.copytree(SAMPLE, vault)
    plan = vault.parent / "init-plan.json"
    plan.write_text(json.dumps(init_plan(vault)))
    db = vault / DB
    ok(command("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", "missing"))
    apply_db("scan-shownotes", db)
    transcripts = vault / "transcripts"
    ok(
        command(
            "rvault-transcript",
            "vtt-cleanup",
            transcripts / f"{VIDEO_ID}.en.vtt",
            transcripts / f"{VIDEO_ID}.txt",
        )
    )
    make_deck(vault.parent / "decks" / "deck.pptx", ["Opening", "Evidence", "Close"])
    (vault / "pptx").mkdir()
    ok(
        command(
            "rvault-pptx",
            "extract",
            vault.parent / "decks" / "deck.pptx",
            "--no-ocr",
            "--out",
            vault / "pptx" / "deck.extraction.json",
        )
    )
    video = vault / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.mp4"
    make_video(video, ["One", "Two"])
    ok(video_argv(vault, video))
    return vault


def returns_vault(vault: Path, *, persisted: bool) -> Path:
    """The conformance suite's real batch (transcripts, claim, completed returns)."""
    if persisted:
        return _returns_vault(vault, persisted=True)  # copied by _persist_producer itself
    return _copied("returns", lambda v: _returns_vault(v, persisted=False), vault)


def _returns_vault(vault: Path, *, persisted: bool) -> Path:
    import sys

    sys.path.insert(0, str(ROOT / "conformance"))
    import _persist_producer as producer

    if persisted:
        db, _, _ = producer.persisted_vault(vault.parent)
        return db.parent
    from _queue_producer import claim
    from _returns_producer import completed_return
    from _support import write_current_database
    from rvault_returns_persistence.catalog import load_catalog

    talks = []
    for name in producer.NAMES:
        path = producer.owner_transcript(vault, name.removesuffix(".md"))
        talks.append(
            {"schema_version": 5, "filename": name, "status": "pending", "transcript_path": path}
        )
    db = write_current_database(vault, talks)
    claim(db, producer.CLAIMED_AT, extra=("--catalog-fingerprint", load_catalog().fingerprint))
    returns = []
    for n, name in enumerate(producer.NAMES, start=3):
        ret = completed_return(db, name)
        for lane in ("patterns_detected", "applicability_assessments"):
            for row in ret["pattern_observations"][lane]:
                for citation in row["evidence_citations"]:
                    citation["quote"] = f"in part {n} of the talk"
        returns.append(ret)
    (vault.parent / "returns.json").write_text(json.dumps(returns, indent=2))
    return vault
