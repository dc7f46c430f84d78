"""persist with every source: a generated deck's real extraction, a PDF, the video, metadata.

The deck is generated with python-pptx and extracted by the installed
``rvault-pptx extract``; its ``pptx_catalog`` v2 record binds the extraction
artifact's digest, which persistence re-hashes. The transcript carries the
owner's YouTube-bound timing and quality receipts (duration 600 s), and the
downloaded delivery video sits at its video-extraction path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from persist_vault import (
    apply_request,
    persist_applied,
    quote,
    read_talk,
    write_database,
    write_extracted_deck,
    write_vtt_transcript,
    write_youtube_transcript,
)
from returns_testdata import claim_v5, complete_return, database, talk, write_pdf, write_video
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.persist import persist

NAME = "2024-05-01-all-sources.md"
YID = "allsrc00001"
SLIDES = 8


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    write_youtube_transcript(tmp_path, YID, 120)
    write_pdf(tmp_path / "slides" / "drive9.pdf", SLIDES)
    write_video(tmp_path, YID)
    record = talk(
        NAME,
        YID,
        google_drive_id="drive9",
        pptx_path="Conf/talk.pptx",
        slide_source="both",
        _queue_claim=claim_v5([NAME]),
    )
    return write_database(
        tmp_path, database([record], [write_extracted_deck(tmp_path, NAME, SLIDES)])
    )


def _return(db: Path) -> dict[str, Any]:
    ret = complete_return(
        read_talk(db, NAME),
        db.parent,
        deck_slides=SLIDES,
        detect=("lightsaber", "composite-animation", "talklet"),
        antidetect=("going-meta",),
    )
    po = ret["pattern_observations"]
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        for row in po[lane]:
            for cit in row["evidence_citations"]:
                if cit["source"] == "transcript":
                    cit["quote"] = quote(9)
    talklet = next(r for r in po["patterns_detected"] if r["pattern_id"] == "talklet")
    talklet["evidence_citations"].append(
        {"source": "transcript", "channel": "talk_metadata", "field": "title"}
    )
    return ret


def test_every_source_is_bound_to_its_exact_artifact(vault: Path) -> None:
    ret = _return(vault)
    sources = {r["source"] for r in ret["pattern_observations"]["source_inspection"]}
    assert sources == {"transcript", "static_slides", "native_deck", "delivery_video"}
    report = persist_applied(vault, [ret])
    assert schema_issues("returns-persistence-report", 2, report) == []
    po = read_talk(vault, NAME)["pattern_observations"]
    assert schema_issues("pattern-observations", 2, po) == []
    rows = {r["source"]: r for r in po["source_inspection"]}
    assert rows["native_deck"]["artifact_path"] == "pptx-extractions/talk.json"
    assert rows["native_deck"]["absence_capability_reason"] == "bare_native_deck"
    assert rows["native_deck"]["absence_capability_complete"] is False
    assert rows["delivery_video"]["artifact_path"] == f"slides-rebuild/{YID}/{YID}.mp4"
    assert rows["delivery_video"]["duration_seconds"] == 600.0
    assert rows["delivery_video"]["absence_capability_reason"] == "bare_delivery_video"
    assert rows["static_slides"]["page_count"] == SLIDES
    citations = {r["pattern_id"]: r["evidence_citations"] for r in po["patterns_detected"]}
    deck = citations["composite-animation"][0]
    assert (deck["channel"], deck["slide_count"]) == ("slide_sequence", SLIDES)
    assert deck["artifact_sha256"] == rows["native_deck"]["artifact_sha256"]
    video = citations["lightsaber"][0]
    assert (video["channel"], video["duration_seconds"]) == ("video", 600.0)
    metadata = citations["talklet"][-1]
    assert metadata == {
        "channel": "talk_metadata",
        "field": "title",
        "owner_value_after_return": "A Talk",
        "source": "transcript",
        "value": "A Talk",
    }


def test_a_changed_deck_extraction_fails_closed(vault: Path, snapshot_file: Any) -> None:
    ret = _return(vault)
    artifact = vault.parent / "pptx-extractions" / "talk.json"
    artifact.write_bytes(artifact.read_bytes() + b" ")
    before = snapshot_file(vault)
    with pytest.raises(Refusal) as refused:
        persist(apply_request(vault, [ret]))
    assert refused.value.code == "native_deck_artifact_changed"
    assert snapshot_file(vault) == before


def test_a_video_interval_needs_an_identity_bound_duration(vault: Path, snapshot_file: Any) -> None:
    """The transcript's receipts carry no video duration (a VTT import); only the talk's
    source_identity names one. That bounds validation but cannot verify a timestamp."""
    for suffix in (".txt", ".segments.json", ".quality.json"):
        (vault.parent / "transcripts" / f"{YID}{suffix}").unlink()
    write_vtt_transcript(vault.parent, YID, 120)
    data = json.loads(vault.read_text())
    data["talks"][0]["source_identity"] = {
        "schema_version": 1,
        "provider": "youtube",
        "video_id": YID,
        "duration_seconds": 600.0,
    }
    vault.write_bytes(artifact_bytes(data))
    ret = _return(vault)
    before = snapshot_file(vault)
    with pytest.raises(Refusal) as refused:
        persist(apply_request(vault, [ret]))
    assert refused.value.code == "video_artifact_unverified"
    assert refused.value.context["hint"]
    assert snapshot_file(vault) == before


def test_a_comparison_row_names_every_compared_artifact(vault: Path) -> None:
    ret = _return(vault)
    po = ret["pattern_observations"]
    group = ["native_deck", "static_slides"]
    po["evidence_sources"].append("source_comparison")
    po["source_inspection"].append(
        {"source": "source_comparison", "evidence_sources_used": group, "comparison_scope": "full"}
    )
    po["not_evaluable"] = [
        r for r in po["not_evaluable"] if r["pattern_id"] != "progressive-reveal"
    ]
    po["patterns_detected"].append(
        {
            "pattern_id": "progressive-reveal",
            "confidence": "strong",
            "evidence_source": "source_comparison",
            "evidence_sources_used": group,
            "evidence": "The deck builds and the rendered PDF agree on three consecutive states.",
            "evidence_citations": [
                {"source": s, "channel": "slide_sequence", "slide_numbers": [4, 5, 6]}
                for s in group
            ],
        }
    )
    po["pattern_score"]["patterns_used"] += 1
    po["pattern_score"]["score"] += 1
    persist_applied(vault, [ret])
    stored = read_talk(vault, NAME)["pattern_observations"]
    assert schema_issues("pattern-observations", 2, stored) == []
    rows = {
        r["source"]: r for r in stored["source_inspection"] if r["source"] != "source_comparison"
    }
    comparison = next(r for r in stored["source_inspection"] if r["source"] == "source_comparison")
    assert [i["source"] for i in comparison["artifact_identities"]] == group
    assert [i["artifact_sha256"] for i in comparison["artifact_identities"]] == [
        rows[s]["artifact_sha256"] for s in group
    ]
    assert comparison["coverage_complete"] is True  # full scope over two complete sources
    assert comparison["absence_capability_complete"] is False
    assert comparison["absence_capability_reason"] == "comparison_alignment_unverified"
    outcome = {r["pattern_id"]: r["outcome"] for r in stored["pattern_outcomes"]}
    assert outcome["progressive-reveal"] == "detected"
    assert "progressive-reveal" in stored["pattern_ids"]


def test_a_changed_provider_duration_is_quality_context_drift(
    vault: Path, snapshot_file: Any
) -> None:
    """Same transcript and receipt bytes, but the talk's source identity now says 900 s."""
    ret = _return(vault)
    data = json.loads(vault.read_text())
    data["talks"][0]["source_identity"] = {
        "schema_version": 1,
        "provider": "youtube",
        "video_id": YID,
        "duration_seconds": 900.0,
    }
    vault.write_bytes(artifact_bytes(data))
    before = snapshot_file(vault)
    with pytest.raises(Refusal) as refused:
        persist(apply_request(vault, [ret]))
    assert refused.value.code == "transcript_quality_receipt_unusable"
    assert refused.value.context["owner_code"] == "transcript_quality_context_drift"
    assert snapshot_file(vault) == before


def test_a_deck_edited_after_its_extraction_is_stale(vault: Path, snapshot_file: Any) -> None:
    """The extraction and its digest are intact, but the deck is no longer the one extracted."""
    ret = _return(vault)
    deck = vault.parent / "Conf" / "talk.pptx"
    deck.write_bytes(deck.read_bytes() + b"\0")
    before = snapshot_file(vault)
    with pytest.raises(Refusal) as refused:
        persist(apply_request(vault, [ret]))
    assert refused.value.code == "native_deck_artifact_changed"
    assert "changed after it was extracted" in refused.value.message
    assert snapshot_file(vault) == before
