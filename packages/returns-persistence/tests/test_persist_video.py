"""persist of a video-extracted return: a generated, trusted video-extraction manifest.

The corpus vault's video talk carries a schema-v3 manifest whose video, crop
and PDFs really exist (``returns_testdata.manifest``) and the promoted
``slides/{id}.pdf``; its transcript gets a quality receipt from the
transcript owner's strict builder.
"""

from __future__ import annotations

import json
from pathlib import Path

import returns_testdata as td
from persist_vault import persist_applied
from rvault_contracts.schemas import schema_issues
from rvault_transcript.language import language_record
from rvault_transcript.receipts import build_quality_receipt, receipt_bytes


def test_a_video_extracted_return_persists_as_positive_only_slide_evidence(tmp_path: Path) -> None:
    db, specs = td.corpus_vault(tmp_path)
    talk = specs["video"]
    transcript = tmp_path / "transcripts" / f"{talk['youtube_id']}.txt"
    receipt = build_quality_receipt(
        transcript.read_bytes(), 400, {"kind": "fixed_default"}, language_record("en", [], None)
    )
    transcript.with_name(f"{talk['youtube_id']}.quality.json").write_bytes(receipt_bytes(receipt))
    ret = td.complete_return(talk, tmp_path, deck_slides=None)
    assert ret["slide_source"] == "video_extracted" and ret["status"] == "processed"
    report = persist_applied(db, [ret])
    assert report["talks"][0]["pattern_scoring_generation"]["status"] == "current"
    stored = next(
        t for t in json.loads(db.read_text())["talks"] if t["filename"] == talk["filename"]
    )
    assert stored["slides_local_path"] == f"slides/{talk['youtube_id']}.pdf"
    assert (
        stored["structured_data"]["video_extraction"] == ret["structured_data"]["video_extraction"]
    )
    ledger = stored["pattern_observations"]
    assert schema_issues("pattern-observations", 2, ledger) == []
    rows = {r["source"]: r for r in ledger["source_inspection"]}
    assert rows["static_slides"]["artifact_path"] == f"slides/{talk['youtube_id']}.pdf"
    assert rows["static_slides"]["absence_capability_complete"] is False
    assert rows["static_slides"]["absence_capability_reason"] == "nonexhaustive_video_extraction"
    outcomes = {r["pattern_id"]: r["outcome"] for r in ledger["pattern_outcomes"]}
    # an entry only a complete authored PDF could prove absent is not evaluable here
    assert outcomes["ant-fonts"] == "not_evaluable"
    row = next(r for r in ledger["not_evaluable"] if r["pattern_id"] == "ant-fonts")
    assert row["reason_code"] == "missing_required_source_coverage"
    assert row["required_source_groups"] == [["static_slides"]]
    assert row["capability_fact"]["absence_capable_sources"] == ["transcript"]
