"""Why each pre-filled not_evaluable row is there: the gate and its members' state.

``gates.unmet_alternatives`` is the arithmetic, ``scaffold.not_evaluable_guide`` the
sentence a worker reads beside the skeleton. The rows themselves come from the
validator's own rule (``expected_reason``), so the guide explains exactly what
the validator expects; these cases pin the explanation for each kind of
evidence: an authored PDF (absence-capable), a video-extracted one and a bare
deck (positive-only), and a talk with no slides at all.
"""

from __future__ import annotations

import returns_testdata as td
from rvault_returns_persistence.artifacts import TalkArtifacts
from rvault_returns_persistence.gates import unmet_alternatives
from rvault_returns_persistence.scaffold import build_scaffold, not_evaluable_guide

FILENAME = "2024-04-10-a-talk.md"


def artifacts(*, pdf: bool = False, extracted: bool = False, deck: bool = False) -> TalkArtifacts:
    return TalkArtifacts(
        transcript_path="transcripts/abcdefghijk.txt",
        transcript_lines=120,
        pdf_path="slides/abcdefghijk.pdf" if pdf else None,
        pdf_pages=12 if pdf else None,
        pdf_is_video_extracted=extracted,
        deck_slides=12 if deck else None,
        video_duration=None,
        video_path=None,
    )


def guide(found: TalkArtifacts, **fields: object) -> dict[str, str]:
    talk = td.talk(FILENAME, "abcdefghijk", _queue_claim=td.claim_v5([FILENAME]), **fields)
    skeleton, _ = build_scaffold(talk, td.CATALOG, found, {"stand-in": "trusted manifest"})
    lines = not_evaluable_guide(skeleton, td.CATALOG, found)
    rows = skeleton["pattern_observations"]["not_evaluable"]
    assert [line.split(":")[0] for line in lines] == [r["pattern_id"] for r in rows]
    return {line.split(":")[0]: line for line in lines}


def test_members_are_capable_positive_only_or_not_inspected() -> None:
    gate = (frozenset({"static_slides"}), frozenset({"native_deck", "transcript"}))
    assert unmet_alternatives(gate, {"static_slides", "transcript"}, {"transcript"}) == [
        (frozenset({"static_slides"}), {"static_slides": "positive_only"}),
        (
            frozenset({"native_deck", "transcript"}),
            {"native_deck": "not_inspected", "transcript": "capable"},
        ),
    ]
    assert unmet_alternatives(None, set(), set()) == []


def test_an_authored_pdf_establishes_the_absence_so_no_row_is_explained() -> None:
    lines = guide(artifacts(pdf=True))
    assert "unifying-visual-theme" not in lines  # absent from a complete authored PDF
    assert "absence_not_authorized_by_catalog" in lines["cookie-cutter"]


def test_video_extracted_pages_are_named_positive_only() -> None:
    line = guide(artifacts(pdf=True, extracted=True), slide_source="video_extracted")[
        "unifying-visual-theme"
    ]
    assert line.startswith("unifying-visual-theme: missing_required_source_coverage: ")
    assert "[static_slides]: static_slides inspected completely but positive-only" in line
    assert "(nonexhaustive_video_extraction)" in line


def test_a_bare_deck_and_a_missing_pdf_say_so() -> None:
    line = guide(artifacts(deck=True), slide_source="pptx")["unifying-visual-theme"]
    assert "[static_slides]: static_slides not available for this talk" in line
    lines = guide(artifacts(deck=True), slide_source="pptx")
    composite = lines["composite-animation"]
    assert "native_deck inspected completely but positive-only (bare_native_deck)" in composite


def test_pending_owner_review_and_applicability_rows() -> None:
    lines = guide(artifacts(), slide_source=None)
    assert "neither detected nor absent" in lines["weatherman"]
    floodmarks = lines["floodmarks"]
    assert floodmarks.startswith("floodmarks: missing_applicability_source_coverage: ")
    assert "static_slides not available for this talk" in floodmarks
    assert "transcript inspected completely" in floodmarks
