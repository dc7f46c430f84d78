"""Artifact bounds: transcript lines, PDF pages, deck slides, video duration and its sources."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import returns_testdata as td
from rvault_returns_persistence.artifacts import count_lines, resolve


def quality_receipt(root: Path, youtube_id: str, duration: float) -> None:
    """A transcript quality receipt v1 bound to the YouTube owner duration (spec shape)."""
    transcript = root / "transcripts" / f"{youtube_id}.txt"
    receipt = {
        "schema_version": 1,
        "transcript_sha256": hashlib.sha256(transcript.read_bytes()).hexdigest(),
        "policy": {"schema_version": 1, "min_words": 400, "duration_seconds": duration},
        "provenance": {
            "kind": "youtube_duration",
            "video_id": youtube_id,
            "duration_seconds": duration,
        },
    }
    (root / "transcripts" / f"{youtube_id}.quality.json").write_text(
        json.dumps(receipt), encoding="utf-8"
    )


def test_count_lines() -> None:
    assert count_lines(b"") == 0
    assert count_lines(b"a\nb\n") == 2
    assert count_lines(b"a\nb") == 2


def test_bounds_from_the_vault(tmp_path: Path) -> None:
    _, specs = td.corpus_vault(tmp_path)
    found = resolve(tmp_path, specs["main"], deck_slides=12)
    assert (found.transcript_lines, found.pdf_pages, found.deck_slides) == (240, 12, 12)
    assert found.pdf_path == "slides/drivemain.pdf" and not found.pdf_is_video_extracted
    assert found.video_duration == 1800.0  # source identity, no receipt yet
    assert found.video_path == "slides-rebuild/main0000001/main0000001.mp4"
    video = resolve(tmp_path, specs["video"], deck_slides=None)
    assert video.pdf_path == "slides/VIDvid00001.pdf" and video.pdf_is_video_extracted
    assert video.pdf_pages == 6


def test_a_current_quality_receipt_supplies_the_owner_duration(tmp_path: Path) -> None:
    _, specs = td.corpus_vault(tmp_path)
    assert specs["main"]["source_identity"]["duration_seconds"] == 1800.0
    quality_receipt(tmp_path, "main0000001", 1800.5)  # within the owner's 1 s tolerance
    assert resolve(tmp_path, specs["main"], deck_slides=12).video_duration == 1800.5
    # a receipt whose duration drifted from the provider's is not current (context drift)
    quality_receipt(tmp_path, "main0000001", 1500.5)
    assert resolve(tmp_path, specs["main"], deck_slides=12).video_duration == 1800.0
    # a receipt bound to another video is not the owner's and proves nothing
    other = {
        **specs["main"],
        "youtube_id": "zzzzzzzzzzz",
        "transcript_path": "transcripts/main0000001.txt",
    }
    assert resolve(tmp_path, other, deck_slides=12).video_duration == 1800.0


def test_symlinked_artifacts_count_as_missing(tmp_path: Path) -> None:
    _, specs = td.corpus_vault(tmp_path)
    pdf = tmp_path / "slides" / "drivemain.pdf"
    target = tmp_path / "elsewhere.pdf"
    pdf.rename(target)
    pdf.symlink_to(target)
    found = resolve(tmp_path, specs["main"], deck_slides=12)
    assert found.pdf_path is None and found.pdf_pages is None


def test_the_youtube_id_pdf_is_video_extracted_even_beside_a_drive_id(tmp_path: Path) -> None:
    """slides/{youtube_id}.pdf is the promoted video PDF by contract, never an authored one.

    A talk with a Google Drive id and no recorded slide_source used to read its
    promoted video PDF as authored, which let sampled video frames establish
    absences.
    """
    td.write_pdf(tmp_path / "slides" / "VIDvid00001.pdf", 5)
    record = {"filename": "x.md", "youtube_id": "VIDvid00001", "google_drive_id": "DRIVE1"}
    for extra in ({}, {"slides_local_path": "slides/VIDvid00001.pdf"}):
        found = resolve(tmp_path, {**record, **extra}, deck_slides=None)
        assert (found.pdf_path, found.pdf_pages) == ("slides/VIDvid00001.pdf", 5)
        assert found.pdf_is_video_extracted is True
    td.write_pdf(tmp_path / "slides" / "DRIVE1.pdf", 7)
    authored = resolve(tmp_path, record, deck_slides=None)
    assert (authored.pdf_path, authored.pdf_is_video_extracted) == ("slides/DRIVE1.pdf", False)


def test_a_talk_without_slide_source_is_scaffolded_from_its_evidence() -> None:
    from rvault_returns_persistence.artifacts import TalkArtifacts
    from rvault_returns_persistence.scaffold import _derived_slide_source

    def found(pdf: str | None, extracted: bool, deck: int | None) -> TalkArtifacts:
        return TalkArtifacts(None, None, pdf, 5 if pdf else None, extracted, deck, None, None)

    manifest = {"schema_version": 3}
    assert _derived_slide_source(found("slides/V.pdf", True, 7), manifest) == "video_extracted"
    assert _derived_slide_source(found("slides/V.pdf", True, None), None) is None  # untrusted
    assert _derived_slide_source(found("slides/D.pdf", False, 7), None) == "both"
    assert _derived_slide_source(found("slides/D.pdf", False, None), None) == "pdf"
    assert _derived_slide_source(found(None, False, 7), None) == "pptx"
    assert _derived_slide_source(found(None, False, None), None) is None
