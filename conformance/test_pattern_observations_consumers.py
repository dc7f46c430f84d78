"""pattern-observations (evidence ledger v2): returns-persistence -> analysis-writer, tracking-db.

Real ``rvault-returns persist`` output (``_persist_producer``) is read as its
consumers read it. tracking-db: its owner read accepts the database holding
the persisted talks, and a later ``rvault-db queue claim`` freezes a
baseline that counts exactly those talks in their opportunity-identity
cohort (the owner's eligibility rules read the ledger's outcomes, identity
and promoted score). analysis-writer (no reader yet; its command arrives
with issue 13) reads the ledger through this registered schema, whose
``$defs`` (citation, source_inspection, not_evaluable, outcome) are the row
contracts it renders; the persistence report names the same identity.
"""

from __future__ import annotations

import json
from pathlib import Path

from _persist_producer import owner_transcript, persisted_vault
from _queue_producer import claim
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

COVERS = [
    ("pattern-observations", "returns-persistence", "analysis-writer"),
    ("pattern-observations", "returns-persistence", "tracking-db"),
]


def test_persisted_ledgers_are_read_by_tracking_db_and_the_schema(tmp_path: Path) -> None:
    db, returns, report = persisted_vault(tmp_path)
    assert schema_issues("returns-persistence-report", 2, report) == []
    read = api.read_database(db)
    assert read.database is not None
    talks = {t["filename"]: t for t in read.database["talks"]}
    identities = set()
    for ret in returns:
        talk = talks[ret["filename"]]
        ledger = talk["pattern_observations"]
        assert schema_issues("pattern-observations", 2, ledger) == []
        assert schema_issues("db-talk", 5, talk) == []
        assert ledger["pattern_score"] == talk["pattern_score"]
        identities.add(ledger["opportunity_coverage_identity"])
        for row in ledger["patterns_detected"]:
            for citation in row["evidence_citations"]:
                assert citation["line_start"] >= 1 and citation["artifact_root"] == "vault"
    # the owner's own baseline arithmetic over the persisted talks (a later claim)
    talks_after = read.database["talks"]
    talks_after.append(
        {
            "schema_version": 5,
            "filename": "2025-01-01-next.md",
            "status": "pending",
            "transcript_path": owner_transcript(db.parent, "2025-01-01-next"),
        }
    )
    db.write_text(json.dumps(read.database, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    from rvault_returns_persistence.catalog import load_catalog

    claim(db, "2026-08-02T09:00:00+00:00", batch="b2", extra=(
        "--catalog-fingerprint", load_catalog().fingerprint))  # fmt: skip
    stored = next(
        t for t in api.read_database(db).database["talks"] if t["filename"] == "2025-01-01-next.md"
    )
    baseline = stored["_queue_claim"]["adherence_baseline"]
    assert baseline["eligible_talk_count"] == 2
    assert len(identities) == 1 and baseline["opportunity_coverage_identity"] in identities
    assert baseline["scored_talk_count"] == 2
    assert baseline["pattern_score_sum"] == sum(t["pattern_score"] for t in talks.values())
    post = report["current_adherence_baseline"]
    assert (post["eligible_talk_count"], post["pattern_score_sum"]) == (2, 2)
