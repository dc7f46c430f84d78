"""queue-claim: tracking-db -> returns-persistence, analysis-writer.

Real claims written by `rvault-db queue ... claim` (fresh, recovered and
reclaimed) are read the way its consumers read them: validated against the
registered schema of their own version, and deep-checked with the public
`rvault_tracking_db.api.claim_issues` reader.

analysis-writer has no reader yet (its command arrives with a later issue);
it is declared a consumer of the same contract and will read it through this
same schema and public api, so one module proves both edges.
"""

from __future__ import annotations

from pathlib import Path

from _queue_producer import build_vault, claim, recover, stored_claims
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

COVERS = [
    ("queue-claim", "tracking-db", "returns-persistence"),
    ("queue-claim", "tracking-db", "analysis-writer"),
]


def test_fresh_claims_are_v5_and_authorize_only_return_v5(tmp_path: Path) -> None:
    db = build_vault(tmp_path)
    report = claim(db, "2026-07-31T18:00:00+00:00")
    assert report["member_count"] == 2
    for filename, stored in stored_claims(db):
        assert stored["schema_version"] == 5
        assert schema_issues("queue-claim", 5, stored) == []
        assert api.claim_issues(stored, filename=filename) == []
        assert api.authorized_return_versions(stored) == (5,)
    assert [m["claim"] for m in report["members"]] == [c for _, c in stored_claims(db)]


def test_recovered_and_reclaimed_generations_read_back(tmp_path: Path) -> None:
    db = build_vault(tmp_path)
    claim(db, "2026-07-31T18:00:00+00:00")
    recover(db, "2026-07-31T19:00:00+00:00")
    claim(db, "2026-07-31T20:00:00+00:00")
    states = sorted((name, c["state"], c["reprocess_generation"]) for name, c in stored_claims(db))
    assert states == [
        ("2024-01-01-a.md", "claimed", 2),
        ("2024-01-01-a.md", "released", 1),
        ("2024-02-01-b.md", "claimed", 2),
        ("2024-02-01-b.md", "released", 1),
    ]
    for filename, stored in stored_claims(db):
        assert schema_issues("queue-claim", stored["schema_version"], stored) == []
        assert api.claim_issues(stored, filename=filename) == []
    released = [c for _, c in stored_claims(db) if c["state"] == "released"]
    assert {c["release_reason"] for c in released} == {"recovered"}
