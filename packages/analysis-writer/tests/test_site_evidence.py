"""Evidence on the overview is what the owners' readers say about the bytes now."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.plugin import run_cli
from site_vault import Vault, build_vault, make_pdf

VIDEO_ID = "Vid3oSl1de0"


def site(vault: Vault, outdir: Path) -> dict[str, Any]:
    result = run_cli("rvault-analysis", "site", outdir, "--db", vault.db, "--outside-vault")
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def row(outdir: Path, filename: str) -> str:
    rows = (outdir / "index.html").read_text().split("<tr ")
    return next(r for r in rows if f'<div class="filename">{filename}</div>' in r)


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return build_vault(tmp_path / "vault", talks=2, processed=2, legacy_every=0)


def test_changed_transcript_bytes_make_its_receipts_invalid(vault: Vault, tmp_path: Path) -> None:
    talk = vault.talks[0]
    path = vault.root / talk["transcript_path"]
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n", 1))
    site(vault, tmp_path / "site")
    shown = row(tmp_path / "site", talk["filename"])
    assert "transcript invalid" in shown
    assert "re-import the transcript" in shown
    assert "transcript valid, timed" in row(tmp_path / "site", vault.talks[1]["filename"])


def test_transcript_without_quality_receipt_is_unverified(vault: Vault, tmp_path: Path) -> None:
    talk = vault.talks[0]
    (vault.root / talk["transcript_path"]).with_suffix(".quality.json").unlink()
    site(vault, tmp_path / "site")
    assert "transcript unverified" in row(tmp_path / "site", talk["filename"])


def test_missing_promoted_pdf_gives_no_thumbnails(vault: Vault, tmp_path: Path) -> None:
    talk = vault.talks[0]
    (vault.root / talk["slides_local_path"]).unlink()
    report = site(vault, tmp_path / "site")
    assert report["thumbnail_count"] == 3  # only the other talk's pages
    assert "slides no" in row(tmp_path / "site", talk["filename"])
    page = (tmp_path / "site" / "talk-2015-01-01-talk-0000.html").read_text()
    assert "No thumbnails: the promoted PDF is missing or unreadable." in page


def _recording(path: Path) -> None:
    import cv2
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 5, (320, 180))
    for number in range(1, 4):
        frame = np.full((180, 320, 3), 240, np.uint8)
        cv2.rectangle(frame, (0, 0), (320, 30), (90, 30, 120), -1)
        cv2.putText(frame, f"Slide {number}", (20, 100), 0, 1.0 + number / 4, (20, 20, 20), 2)
        cv2.circle(frame, (60 * number + 40, 150), 12 * number, (40, 90, 200), -1)
        for _ in range(20):
            writer.write(frame)
    writer.release()


def test_video_extracted_slides_are_trusted_only_as_the_manifest_says(
    vault: Vault, tmp_path: Path
) -> None:
    workdir = vault.root / "slides-rebuild" / VIDEO_ID
    _recording(workdir / f"{VIDEO_ID}.mp4")
    extracted = run_cli(
        "rvault-video", "extract", workdir / f"{VIDEO_ID}.mp4", workdir, VIDEO_ID,
        "--vault-root", vault.root, "--fps", "1", "--region", "0,0,1,1", "--region-verified",
    )  # fmt: skip
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    manifest = workdir / f"{VIDEO_ID}.video-extraction.json"
    promoted = run_cli("rvault-video", "promote", manifest, "--vault-root", vault.root)
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    talk = vault.talks[0]
    talk.update(
        youtube_id=VIDEO_ID,
        slide_source="video_extracted",
        slides_local_path=promoted.json["slides_local_path"],
    )
    vault.write_db()
    report = site(vault, tmp_path / "site")
    shown = row(tmp_path / "site", talk["filename"])
    assert "slides trusted" in shown and "video current, trusted" in shown
    pages = json.loads(manifest.read_text())["unique_frame_count"]
    assert report["thumbnail_count"] == 3 + pages
    page = (tmp_path / "site" / "talk-2015-01-01-talk-0000.html").read_text()
    assert "(trusted video-extracted slide region)" in page

    # Another PDF at the promoted path is not the manifest's trusted artifact.
    make_pdf(vault.root / talk["slides_local_path"], 2, "substituted")
    site(vault, tmp_path / "again")
    shown = row(tmp_path / "again", talk["filename"])
    assert "slides no" in shown
    assert "not the manifest&#39;s trusted slide region" in shown
    shutil.rmtree(tmp_path / "again")


def _deck(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    for title in ("Opening", "Evidence", "Close"):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = f"{title} in one line"
    deck.save(str(path))


def test_deck_state_comes_from_the_pptx_catalog_receipt(vault: Vault, tmp_path: Path) -> None:
    talk = vault.talks[0]
    _deck(vault.root / "talk.pptx")
    extraction = vault.root / "pptx" / "talk.extraction.json"
    extraction.parent.mkdir()
    extracted = run_cli(
        "rvault-pptx", "extract", vault.root / "talk.pptx", "--no-ocr", "--out", extraction,
        "--source-root", vault.root,
    )  # fmt: skip
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    site(vault, tmp_path / "before")
    assert "deck missing" in row(tmp_path / "before", talk["filename"])
    dry = run_cli("rvault-db", "record-deck", vault.db, extraction, "--talk", talk["filename"])
    assert dry.returncode == 0, dry.stdout + dry.stderr
    applied = run_cli(
        "rvault-db", "record-deck", vault.db, extraction, "--talk", talk["filename"],
        "--apply", "--expected-sha256", dry.json["input_sha256"],
    )  # fmt: skip
    assert applied.returncode == 0, applied.stdout + applied.stderr
    site(vault, tmp_path / "after")
    assert "deck extracted" in row(tmp_path / "after", talk["filename"])
    assert "deck missing" in row(tmp_path / "after", vault.talks[1]["filename"])
