"""Generated vaults for the persist tests: real owner artifacts, claimed batches.

Transcripts come from a generated WebVTT file through the installed
``rvault-transcript vtt-cleanup`` (so the transcript, its timing receipt v2
and its quality receipt are the owner's own bytes). Each caption line is
unique, so a quote can be located exactly once. Slide PDFs are pypdf pages.
Claims are written into the database following the specification's claim v5
example (``returns_testdata.claim_v5``); the database is written in the
owner's canonical layout (``canonical.artifact_bytes``).
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

from returns_testdata import (
    CATALOG,
    claim_v5,
    complete_return,
    database,
    talk,
    write_pdf,
)
from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.plugin import run_cli

RUN_DATE = "2026-08-01T09:00:00+00:00"
CUE_SECONDS = 5.0


def caption(n: int) -> str:
    return f"in chapter {n} of this story we ask a question about failure and then answer it"


def quote(n: int) -> str:
    """Unique in the transcript: 'chapter 7 of' never occurs inside 'chapter 70 of'."""
    return f"in chapter {n} of this story"


def _stamp(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    hours, minutes = divmod(int(minutes), 60)
    return f"{hours:02d}:{minutes:02d}:{rest:06.3f}"


def write_vtt_transcript(root: Path, youtube_id: str, cues: int) -> Path:
    """transcripts/{id}.txt + receipts through the transcript owner's vtt-cleanup."""
    folder = root / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["WEBVTT", ""]
    for n in range(1, cues + 1):
        start = (n - 1) * CUE_SECONDS
        lines += [f"{_stamp(start)} --> {_stamp(start + 4.0)}", caption(n), ""]
    vtt = folder / f"{youtube_id}.en.vtt"
    vtt.write_text("\n".join(lines), encoding="utf-8")
    out = folder / f"{youtube_id}.txt"
    result = run_cli("rvault-transcript", "vtt-cleanup", vtt, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def write_extracted_deck(
    root: Path, filename: str, slides: int, deck_bytes: bytes | None = None
) -> dict[str, Any]:
    """A deck at ``Conf/talk.pptx`` below ``root`` (``deck_bytes``, else ``slides`` python-pptx
    title slides), extracted by the installed ``rvault-pptx extract`` into
    ``pptx-extractions/talk.json``; returns its ``pptx_catalog`` v2 record (the extraction
    artifact's digest bound, as tracking-db records it)."""
    import hashlib
    import json

    (root / "Conf").mkdir()
    if deck_bytes is not None:
        (root / "Conf" / "talk.pptx").write_bytes(deck_bytes)
    else:
        from pptx import Presentation

        deck = Presentation()
        for n in range(1, slides + 1):
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text = f"Step {n}"
        deck.save(str(root / "Conf" / "talk.pptx"))
    (root / "pptx-extractions").mkdir()
    out = root / "pptx-extractions" / "talk.json"
    result = run_cli(
        "rvault-pptx", "extract", "Conf/talk.pptx", "--no-ocr", "--out", out,
        "--source-root", ".", cwd=root,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    extraction = json.loads(out.read_text())
    return {
        "schema_version": 2,
        "pptx_path": "Conf/talk.pptx",
        "talk_filename": filename,
        "matched": True,
        "slide_count": extraction["slide_count"],
        "visual_extracted": True,
        "visual_evidence": {
            "outcome": "succeeded",
            "extractor_schema_version": extraction["schema_version"],
            "pipeline_version": extraction["pipeline_version"],
            "source_fingerprint": extraction["input_fingerprint"],
            "artifact": {
                "path": "pptx-extractions/talk.json",
                "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
            },
        },
    }


def write_database(root: Path, db: dict[str, Any]) -> Path:
    path = root / "tracking-database.json"
    path.write_bytes(artifact_bytes(db))
    return path


def build_vault(
    root: Path, *, members: int = 2, cues: int = 120, pages: int = 12, extra: int = 0
) -> tuple[Path, list[str]]:
    """``members`` claimed talks (one batch) plus ``extra`` unclaimed processed-less talks."""
    names = [f"2024-04-{10 + i:02d}-talk-{i}.md" for i in range(members)]
    talks = []
    for i, name in enumerate(names):
        yid = f"vid{i:08d}"
        talks.append(
            talk(
                name,
                yid,
                google_drive_id=f"drive{i}",
                slide_source="pdf",
                _queue_claim=claim_v5(names),
            )
        )
        write_vtt_transcript(root, yid, cues)
        write_pdf(root / "slides" / f"drive{i}.pdf", pages)
    for j in range(extra):
        talks.append(
            talk(f"2023-01-{1 + j % 28:02d}-other-{j}.md", f"oth{j:08d}", status="pending")
        )
    return write_database(root, database(talks)), names


def read_talk(db: Path, filename: str) -> dict[str, Any]:
    import json

    for record in json.loads(db.read_text(encoding="utf-8"))["talks"]:
        if record["filename"] == filename:
            return record
    raise KeyError(filename)


def fill_return(
    db: Path, filename: str, *, version: int = 5, chapter: int = 7, **options: Any
) -> dict[str, Any]:
    """A completed return whose transcript citations quote a unique caption."""
    record = read_talk(db, filename)
    ret = complete_return(record, db.parent, deck_slides=None, version=version, **options)
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        for row in ret.get("pattern_observations", {}).get(lane, []):
            for cit in row.get("evidence_citations", []):
                if cit.get("source") == "transcript":
                    cit["quote"] = quote(chapter)
    return ret


def batch(db: Path, names: list[str], **options: Any) -> list[dict[str, Any]]:
    return [fill_return(db, name, chapter=3 + i, **options) for i, name in enumerate(names)]


def observable_ids() -> list[str]:
    return sorted(e.id for e in CATALOG.observable())


def deep(value: Any) -> Any:
    return copy.deepcopy(value)


def write_youtube_transcript(root: Path, youtube_id: str, cues: int) -> float:
    """A captions transcript with owner-built receipts bound to the YouTube video and duration.

    Built with the transcript owner's strict receipt builders (the bytes its fetch
    writes); returns the video duration the receipts carry.
    """
    from rvault_transcript.language import language_record
    from rvault_transcript.receipts import (
        Segment,
        build_quality_receipt,
        build_timing_receipt,
        receipt_bytes,
    )

    folder = root / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    text = "\n".join(caption(n) for n in range(1, cues + 1)) + "\n"
    data = text.encode("utf-8")
    (folder / f"{youtube_id}.txt").write_bytes(data)
    duration = cues * CUE_SECONDS
    segments = [
        Segment(caption(n), (n - 1) * CUE_SECONDS, (n - 1) * CUE_SECONDS + 4.0)
        for n in range(1, cues + 1)
    ]
    timing = build_timing_receipt(
        data,
        "captions",
        {"kind": "youtube_captions", "video_id": youtube_id, "duration_seconds": duration},
        segments,
    )
    (folder / f"{youtube_id}.segments.json").write_bytes(receipt_bytes(timing))
    provenance = {"kind": "youtube_duration", "video_id": youtube_id, "duration_seconds": duration}
    quality = build_quality_receipt(data, 400, provenance, language_record("en", [], None))
    (folder / f"{youtube_id}.quality.json").write_bytes(receipt_bytes(quality))
    return duration


def file_sha256(path: Path) -> str:
    """The SHA-256 of the database bytes (what a reviewed dry run quotes)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def apply_request(db: Path, returns: Any, run_date: str = RUN_DATE, **options: Any) -> Any:
    """An ``--apply`` request bound to the database as it is now (a reviewed dry run)."""
    from rvault_returns_persistence.persist import PersistRequest

    return PersistRequest(
        db, returns, run_date, apply=True, expected_sha256=file_sha256(db), **options
    )


def persist_applied(db: Path, returns: Any, run_date: str = RUN_DATE, **options: Any) -> Any:
    """The protocol every caller follows: the dry run (nothing written), then its apply."""
    from rvault_returns_persistence.persist import PersistRequest, persist

    before = db.read_bytes()
    dry = persist(PersistRequest(db, returns, run_date, **options))
    assert dry["mode"] == "dry-run" and dry["database_written"] is False
    assert db.read_bytes() == before
    applied = persist(
        PersistRequest(
            db, returns, run_date, apply=True, expected_sha256=dry["input_sha256"], **options
        )
    )
    assert applied["output_sha256"] == dry["output_sha256"]  # the dry run showed the result
    return applied
