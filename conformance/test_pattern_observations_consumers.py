"""pattern-observations (evidence ledger v2): returns-persistence -> analysis-writer, tracking-db.

The ledger a current scoring generation persists on its talk is read as its
consumers read it: tracking-db's owner read accepts a talk schema 5 holding
it and the owner baseline counts that talk; analysis-writer (no reader yet,
its command arrives with issue 13) reads it through this registered schema,
whose ``$defs`` (citation, source_inspection, not_evaluable, outcome) are the
row contracts it renders.
"""

from __future__ import annotations

from pathlib import Path

from _support import CASES_DIR, load_cases, pending_talk, write_current_database
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

COVERS = [
    ("pattern-observations", "returns-persistence", "analysis-writer"),
    ("pattern-observations", "returns-persistence", "tracking-db"),
]


def _valid_ledgers() -> list[dict]:
    groups = load_cases(CASES_DIR / "pattern-observations" / "v2.json")
    return [t["data"] for g in groups for t in g["tests"] if t["valid"]]


def test_the_owner_read_accepts_a_current_talk_holding_the_ledger(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "transcripts").mkdir(parents=True)
    ledger = _valid_ledgers()[0]
    assert schema_issues("pattern-observations", 2, ledger) == []
    talk = pending_talk(vault, "2024-01-01-a.md", "one line\n")
    talk.update(
        schema_version=5,
        status="processed",
        pattern_observations=ledger,
        pattern_score=ledger["pattern_score"],
        pattern_scoring_generation_status="current",
        pattern_scoring_generation_reasons=[],
        pattern_scoring_schema_version=5,
        pattern_catalog_fingerprint="ab" * 32,
    )
    db = write_current_database(vault, [talk])
    read = api.read_database(db)
    assert read.database is not None
    stored = read.database["talks"][0]["pattern_observations"]
    assert stored == ledger
    assert schema_issues("pattern-observations", 2, stored) == []
