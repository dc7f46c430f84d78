"""``rvault-db status``: one row per talk with its next action, as JSON and as a table."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

YT = "dQw4w9WgXcQ"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/t.txt")
    qb.write_pptx(vault / "Deck.pptx")
    caps = [{"capability": "local_transcript", "path": "transcripts/t.txt", "root": "vault"}]
    talks = [
        qb.bind_evidence(
            vault, qb.processed_talk("2023-01-01-done.md", 7, processed_date="2024-01-02")
        ),
        qb.pending_talk("2024-01-01-vimeo.md", video_url="https://vimeo.com/1"),
        qb.remote_talk("2024-02-01-yt.md", YT, source_capabilities=[]),
        qb.pending_talk(
            "2024-03-01-deck.md", transcript_path="transcripts/t.txt", pptx_path="Deck.pptx"
        ),
        qb.pending_talk(
            "2024-04-01-ready.md", transcript_path="transcripts/t.txt", source_capabilities=caps
        ),
        qb.pending_talk("2024-05-01-dup.md", status="skipped_duplicate"),
    ]
    return qb.write_db(vault, qb.database(talks))


def test_status_json_names_each_talks_next_action(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    result = run_cli("rvault-db", "status", db)  # not a terminal: JSON
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("db-status-report", 1, report) == []
    actions = {row["filename"]: row["next_action"]["code"] for row in report["talks"]}
    assert actions == {
        "2023-01-01-done.md": "none",
        "2024-01-01-vimeo.md": "register_transcript",  # a non-YouTube video needs a transcript
        "2024-02-01-yt.md": "normalize",  # stored capabilities are stale
        "2024-03-01-deck.md": "extract_deck",
        "2024-04-01-ready.md": "claim",
        "2024-05-01-dup.md": "none",
    }
    rows = {row["filename"]: row for row in report["talks"]}
    assert rows["2023-01-01-done.md"]["score"] == 7
    assert rows["2024-03-01-deck.md"]["deck"] == {
        "pptx_path": "Deck.pptx",
        "state": "not_catalogued",
        "evidence_class": None,
        "regenerate": None,
    }
    assert rows["2024-04-01-ready.md"]["transcript"]["state"] == "unverified"  # no quality receipt
    assert report["readers"] == {"transcript": True, "video_manifest": True, "deck_evidence": True}
    assert report["totals"]["talks"] == 6 and report["totals"]["by_next_action"]["none"] == 2
    assert snapshot_file(db) == before
    assert not (db.parent / "tracking-database.json.lock").exists()


def test_status_table(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    result = run_cli("rvault-db", "status", db, "--format", "table")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "TALK",
        "STATUS",
        "TRANSCRIPT",
        "MEDIA",
        "DECK",
        "VIDEO",
        "CLAIM",
        "PROCESSED",
        "SCORE",
        "NEXT",
    ]
    done = next(line for line in lines if line.startswith("2023-01-01-done.md"))
    assert "processed" in done and "2024-01-02" in done and " 7 " in done
    assert any(
        line.startswith("2024-03-01-deck.md") and "extract the deck" in line for line in lines
    )
    assert lines[-1].startswith("next actions: claim 1, extract_deck 1, none 2")


def test_a_catalogued_deck_whose_bytes_changed_is_extracted_again(tmp_path: Path) -> None:
    """The deck's state comes from the pptx owner's classifier on the live bytes."""
    db = _vault(tmp_path)
    document = qb.read_db(db)
    deck = db.parent / "Deck.pptx"
    receipt = {
        "outcome": "succeeded",
        "extractor_schema_version": 4,
        "pipeline_version": "0.0.1",
        "source_fingerprint": {
            "algorithm": "sha256",
            "digest": qb.sha(deck.read_bytes()),
            "size_bytes": deck.stat().st_size,
        },
        "artifact": {"path": "pptx/deck.json", "sha256": "e" * 64},
    }
    document["pptx_catalog"] = [
        {
            "schema_version": 2,
            "pptx_path": "Deck.pptx",
            "talk_filename": "2024-03-01-deck.md",
            "matched": True,
            "slide_count": 1,
            "visual_extracted": True,
            "visual_evidence": receipt,
        }
    ]
    qb.write_db(db.parent, document)
    deck.write_bytes(deck.read_bytes() + b"changed")
    report = run_cli("rvault-db", "status", db, "--format", "json").json
    row = next(r for r in report["talks"] if r["filename"] == "2024-03-01-deck.md")
    assert row["deck"]["state"] == "extracted"
    assert (row["deck"]["evidence_class"], row["deck"]["regenerate"]) == ("source_changed", True)
    assert row["next_action"]["code"] == "extract_deck"
