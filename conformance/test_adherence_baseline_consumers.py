"""adherence-baseline: tracking-db -> returns-persistence, analysis-writer.

The baseline frozen into real claims by `rvault-db queue ... claim` is read
as its consumers read it: schema v2 by `$ref`, the public
`rvault_tracking_db.api.baseline_issues` arithmetic check, and one
identical snapshot per batch whose exclusion is the exact sorted batch.

analysis-writer has no reader yet (its command arrives with a later issue);
it is declared a consumer of the same contract and will read it through this
same schema and public api, so one module proves both edges.
"""

from __future__ import annotations

from pathlib import Path

from _queue_producer import build_vault, claim, stored_claims
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

COVERS = [
    ("adherence-baseline", "tracking-db", "returns-persistence"),
    ("adherence-baseline", "tracking-db", "analysis-writer"),
]


def test_available_baseline_is_one_snapshot_of_the_exact_cohort(tmp_path: Path) -> None:
    db = build_vault(tmp_path)
    report = claim(db, "2026-07-31T18:00:00+00:00")
    baselines = [c["adherence_baseline"] for _, c in stored_claims(db)]
    assert all(b == baselines[0] for b in baselines)
    baseline = baselines[0]
    assert schema_issues("adherence-baseline", 2, baseline) == []
    assert api.baseline_issues(baseline) == []
    assert baseline["excluded_filenames"] == ["2024-01-01-a.md", "2024-02-01-b.md"]
    assert baseline["as_of"] == report["claimed_at"] == "2026-07-31T18:00:00+00:00"
    assert (baseline["scored_talk_count"], baseline["pattern_score_sum"]) == (3, 6)
    assert baseline["average_pattern_score"] == 2.0
    assert baseline["raw_score_comparison_status"] == "available"


def test_mixed_identity_baseline_reads_as_unavailable(tmp_path: Path) -> None:
    db = build_vault(tmp_path, mixed=True)
    claim(db, "2026-07-31T18:00:00+00:00")
    baseline = stored_claims(db)[0][1]["adherence_baseline"]
    assert schema_issues("adherence-baseline", 2, baseline) == []
    assert api.baseline_issues(baseline) == []
    assert baseline["eligible_talk_count"] == 4
    assert baseline["raw_score_comparison_reason"] == "mixed_opportunity_coverage"
    assert (baseline["scored_talk_count"], baseline["pattern_score_sum"]) == (0, 0)
    assert baseline["average_pattern_score"] is None
    assert baseline["opportunity_coverage_identity"] is None
