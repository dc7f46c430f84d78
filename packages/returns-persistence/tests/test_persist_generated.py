"""Hypothesis: every generated valid v5 return persists, and its ledger keeps its invariants.

The vault has every source (owner-receipted transcript, PDF, a real deck file
recorded in pptx_catalog, the downloaded video); the strategy varies the
detections (from any gate-satisfying source, so transcript quotes, slide
numbers and video intervals all occur), applicability results and how the
transcript inspection is split. Each example persists into a fresh copy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import returns_testdata as td
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from persist_vault import (
    persist_applied,
    quote,
    read_talk,
    write_database,
    write_youtube_transcript,
)
from rvault_contracts.schemas import schema_issues

CAT = td.CATALOG
SOURCES = {"transcript", "static_slides", "native_deck", "delivery_video"}
DETECTABLE = sorted(
    e.id
    for e in CAT.observable()
    if not e.pending_owner_review and td.pick_source(e.evaluable_from, e.evidence_channels, SOURCES)
)
CONDITIONAL = sorted(e.id for e in CAT.observable() if e.conditional and not e.pending_owner_review)
NAME = "2024-07-01-generated.md"
YID = "genvid00001"
LINES = 240


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pptx import Presentation

    root = tmp_path_factory.mktemp("generated-persist")
    write_youtube_transcript(root, YID, LINES)
    td.write_pdf(root / "slides" / "gen.pdf", 12)
    td.write_video(root, YID)
    deck = Presentation()
    for n in range(12):
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = f"Slide {n + 1}"
    (root / "Gen").mkdir()
    deck.save(str(root / "Gen" / "deck.pptx"))
    record = td.talk(
        NAME,
        YID,
        google_drive_id="gen",
        pptx_path="Gen/deck.pptx",
        slide_source="both",
        _queue_claim=td.claim_v5([NAME]),
    )
    catalog = [
        {
            "schema_version": 1,
            "pptx_path": "Gen/deck.pptx",
            "talk_filename": NAME,
            "matched": True,
            "slide_count": 12,
            "visual_extracted": False,
        }
    ]
    return write_database(root, td.database([record], catalog))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    detected=st.lists(st.sampled_from(DETECTABLE), unique=True, max_size=8),
    applicable=st.sets(st.sampled_from(CONDITIONAL)),
    chapter=st.integers(min_value=1, max_value=LINES),
    cut=st.integers(min_value=2, max_value=LINES),
)
def test_generated_returns_persist_with_consistent_ledgers(
    template: Path, tmp_path_factory: pytest.TempPathFactory, detected: list[str],
    applicable: set[str], chapter: int, cut: int,
) -> None:  # fmt: skip
    root = tmp_path_factory.mktemp("example")
    shutil.copytree(template.parent, root, dirs_exist_ok=True, symlinks=True)
    db = root / template.name
    patterns = tuple(p for p in detected if CAT.entries[p].type == "pattern")
    antipatterns = tuple(p for p in detected if CAT.entries[p].type == "antipattern")
    ret = td.complete_return(
        read_talk(db, NAME),
        root,
        deck_slides=12,
        detect=patterns,
        antidetect=antipatterns,
        applicable=frozenset(applicable),
    )
    po = ret["pattern_observations"]
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        for row in po[lane]:
            for cit in row["evidence_citations"]:
                if cit["source"] == "transcript":
                    cit["quote"] = quote(chapter)
    po["source_inspection"][0]["line_ranges"] = [[1, cut - 1], [cut, LINES]]
    report = persist_applied(db, [ret])
    assert schema_issues("returns-persistence-report", 2, report) == []
    stored_talk = read_talk(db, NAME)
    ledger = stored_talk["pattern_observations"]
    assert schema_issues("pattern-observations", 2, ledger) == []
    outcomes = {r["pattern_id"]: r["outcome"] for r in ledger["pattern_outcomes"]}
    assert sorted(outcomes) == sorted(e.id for e in CAT.observable())
    assert {p for p, o in outcomes.items() if o == "detected"} == set(detected)
    assert sorted(ledger["not_evaluable_ids"]) == sorted(
        p for p, o in outcomes.items() if o == "not_evaluable"
    )
    assert (
        ledger["pattern_score"] == stored_talk["pattern_score"] == len(patterns) - len(antipatterns)
    )
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        for row in ledger[lane]:
            for cit in row["evidence_citations"]:
                if cit["channel"] in ("transcript", "timed_transcript"):
                    assert cit["line_start"] == cit["line_end"] == chapter
    transcript = next(r for r in ledger["source_inspection"] if r["source"] == "transcript")
    assert transcript["coverage_complete"] is True and transcript["line_count"] == LINES
    baseline = report["current_adherence_baseline"]
    assert baseline["eligible_talk_count"] == 1
    assert baseline["opportunity_coverage_identity"] == ledger["opportunity_coverage_identity"]
    assert json.loads(db.read_text())["talks"][0]["_queue_claim"]["state"] == "completed"
