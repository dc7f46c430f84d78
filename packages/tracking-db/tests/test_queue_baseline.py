"""Baseline arithmetic: exclusion first, exact cohorts, ROUND_HALF_EVEN, zero/null sentinels."""

from __future__ import annotations

import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_tracking_db.queue.baseline import average, baseline_issues, build_baseline

NOW = "2026-07-31T18:00:00+00:00"


def _build(talks: list[dict], batch: tuple[str, ...] = ("new.md",)) -> dict:
    return build_baseline(
        talks, batch_filenames=batch, as_of=NOW, catalog_fingerprint=qb.FP
    ).baseline


@pytest.mark.parametrize(
    ("total", "count", "expected"),
    [
        (170, 25, 6.8),
        (1, 8, 0.12),  # 0.125 -> 0.12 (half to even)
        (3, 8, 0.38),  # 0.375 -> 0.38
        (5, 8, 0.62),  # 0.625 -> 0.62
        (-1, 8, -0.12),
        (2, 3, 0.67),
        (10, 4, 2.5),
        (0, 5, 0.0),
        (7, 0, None),
    ],
)
def test_average_rounds_half_even_to_two_places(
    total: int, count: int, expected: float | None
) -> None:
    assert average(total, count) == expected


def test_available_cohort_counts_sums_and_averages() -> None:
    talks = [qb.processed_talk(f"t{i}.md", s) for i, s in enumerate([1, 2, 2, 3, 0, 0, 0, 0])]
    baseline = _build(talks)
    assert baseline["eligible_talk_count"] == 8
    assert baseline["scored_talk_count"] == 8
    assert baseline["pattern_score_sum"] == 8
    assert baseline["average_pattern_score"] == 1.0
    assert baseline["raw_score_comparison_status"] == "available"
    assert baseline["raw_score_comparison_reason"] is None
    assert baseline["opportunity_coverage_identity"] == qb.ID_A
    assert baseline_issues(baseline) == []


def test_exclusion_happens_before_any_score_inspection() -> None:
    # the batch member is a current processed talk with a huge score: it must not count,
    # and its broken nested score must not even be reported
    member = qb.processed_talk("member.md", 99)
    member["pattern_observations"]["pattern_score"] = 1
    talks = [member, qb.processed_talk("a.md", 1), qb.processed_talk("b.md", 2)]
    result = build_baseline(
        talks, batch_filenames=["member.md"], as_of=NOW, catalog_fingerprint=qb.FP
    )
    assert result.baseline["excluded_filenames"] == ["member.md"]
    assert result.baseline["eligible_talk_count"] == 2
    assert result.baseline["pattern_score_sum"] == 3
    assert result.baseline["average_pattern_score"] == 1.5
    assert result.exclusions == ()


def test_only_current_exact_generation_talks_count() -> None:
    talks = [
        qb.processed_talk("ok.md", 4),
        qb.processed_talk("partial.md", 2, status="processed_partial"),
        qb.processed_talk("pending.md", 9, status="pending"),
        qb.processed_talk("other-fp.md", 9, fingerprint="b" * 64),
        qb.processed_talk(
            "legacy.md", 9, pattern_scoring_generation_status="legacy_unbaselineable"
        ),
        qb.processed_talk("v4.md", 9, pattern_scoring_schema_version=4),
        qb.processed_talk("bool.md", 9, pattern_scoring_schema_version=True),
        qb.processed_talk("reasons.md", 9, pattern_scoring_generation_reasons=["x"]),
        qb.processed_talk("disagree.md", 9, pattern_score=8),
    ]
    result = build_baseline(talks, batch_filenames=["new.md"], as_of=NOW, catalog_fingerprint=qb.FP)
    assert result.baseline["eligible_talk_count"] == 2
    assert result.baseline["pattern_score_sum"] == 6
    assert [e.to_dict() for e in result.exclusions] == [
        {"filename": "reasons.md", "reason": "current_with_reasons"},
        {"filename": "disagree.md", "reason": "pattern_score_disagreement"},
    ]


def test_nested_score_object_form_must_agree_and_still_break_ledger_v2() -> None:
    talk = qb.processed_talk("a.md", 3)
    talk["pattern_observations"]["pattern_score"] = {"score": 4, "patterns_used": 4}
    disagreeing = build_baseline([talk], batch_filenames=[], as_of=NOW, catalog_fingerprint=qb.FP)
    assert [e.reason for e in disagreeing.exclusions] == ["pattern_score_disagreement"]
    # agreeing, the object form is still not what ledger v2 allows (an integer): left out
    talk["pattern_observations"]["pattern_score"] = {"score": 3, "patterns_used": 3}
    agreeing = build_baseline([talk], batch_filenames=[], as_of=NOW, catalog_fingerprint=qb.FP)
    assert [e.reason for e in agreeing.exclusions] == ["pattern_observations_invalid"]
    assert agreeing.baseline["pattern_score_sum"] == 0


def test_mixed_identities_publish_zero_null_with_reason() -> None:
    talks = [qb.processed_talk("a.md", 5), qb.processed_talk("b.md", 7, identity=qb.ID_B)]
    baseline = _build(talks)
    assert baseline["eligible_talk_count"] == 2
    assert baseline["opportunity_coverage_identity"] is None
    assert baseline["raw_score_comparison_status"] == "unavailable"
    assert baseline["raw_score_comparison_reason"] == "mixed_opportunity_coverage"
    assert (baseline["scored_talk_count"], baseline["pattern_score_sum"]) == (0, 0)
    assert baseline["average_pattern_score"] is None
    assert baseline_issues(baseline) == []


def test_empty_cohort_publishes_zero_null_with_reason() -> None:
    baseline = _build([qb.pending_talk("p.md")])
    assert baseline["eligible_talk_count"] == 0
    assert baseline["raw_score_comparison_reason"] == "no_eligible_talks"
    assert baseline["average_pattern_score"] is None
    assert baseline_issues(baseline) == []


def test_no_evaluable_opportunities_never_publish_an_available_zero() -> None:
    talks = [
        qb.processed_talk("a.md", 0, outcomes=("not_evaluable", "not_applicable")),
        qb.processed_talk("b.md", 0, outcomes=()),
    ]
    baseline = _build(talks)
    assert baseline["raw_score_comparison_status"] == "unavailable"
    assert baseline["raw_score_comparison_reason"] == "no_evaluable_pattern_opportunities"
    assert baseline["opportunity_coverage_identity"] == qb.ID_A
    assert baseline["average_pattern_score"] is None
    assert baseline_issues(baseline) == []


def test_baseline_validation_catches_arithmetic_and_sentinels() -> None:
    good = _build([qb.processed_talk("a.md", 1), qb.processed_talk("b.md", 2)])
    assert baseline_issues(good) == []
    cases = {
        "average_pattern_score": (dict(good, average_pattern_score=1.0), "aggregate_mismatch"),
        "raw_score_comparison_reason": (
            dict(good, raw_score_comparison_reason="x"),
            "invalid_value",
        ),
        "excluded_filenames": (dict(good, excluded_filenames=["b", "a"]), "not_sorted_unique"),
        "as_of": (dict(good, as_of="2026-07-31T18:00:00"), "invalid_timestamp"),
        "eligible_talk_count": (dict(good, eligible_talk_count=True), "invalid_type"),
        "extra": (dict(good, extra=1), "unknown_field"),
    }
    for field, (baseline, code) in cases.items():
        assert code in {i.code for i in baseline_issues(baseline)}, field
    unavailable = _build(
        [qb.processed_talk("a.md", 1), qb.processed_talk("b.md", 2, identity=qb.ID_B)]
    )
    bad = dict(unavailable, pattern_score_sum=3)
    assert {i.code for i in baseline_issues(bad)} == {"aggregate_mismatch"}
    future = dict(good, schema_version=3)
    assert [i.code for i in baseline_issues(future)] == ["unsupported_baseline_version"]
    assert baseline_issues([]) and baseline_issues([])[0].code == "baseline_not_object"


def test_untrustworthy_current_talks_are_reported_exclusions() -> None:
    no_observations = qb.processed_talk("no-observations.md", 9)
    del no_observations["pattern_observations"]
    listed = qb.processed_talk("listed.md", 9)
    listed["pattern_observations"] = [listed["pattern_observations"]]
    no_identity = qb.processed_talk("no-identity.md", 9)
    del no_identity["pattern_observations"]["opportunity_coverage_identity"]
    bad_identity = qb.processed_talk("bad-identity.md", 9, identity=qb.ID_A.upper())
    talks = [qb.processed_talk("ok.md", 4), no_observations, listed, no_identity, bad_identity]
    result = build_baseline(talks, batch_filenames=["new.md"], as_of=NOW, catalog_fingerprint=qb.FP)
    assert [e.to_dict() for e in result.exclusions] == [
        {"filename": "no-observations.md", "reason": "missing_pattern_observations"},
        {"filename": "listed.md", "reason": "missing_pattern_observations"},
        {"filename": "no-identity.md", "reason": "missing_opportunity_coverage_identity"},
        {"filename": "bad-identity.md", "reason": "missing_opportunity_coverage_identity"},
    ]
    assert (result.baseline["eligible_talk_count"], result.baseline["pattern_score_sum"]) == (1, 4)
    assert baseline_issues(result.baseline) == []


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"excluded_filenames": []}, "empty_exclusion", "excluded_filenames"),
        ({"active_batch_excluded": False}, "unexpected_exclusion", "excluded_filenames"),
        ({"schema_version": "2"}, "invalid_baseline_version", "schema_version"),
        ({"schema_version": None}, "invalid_baseline_version", "schema_version"),
        (
            {"pattern_catalog_fingerprint": "F" * 64},
            "invalid_digest",
            "pattern_catalog_fingerprint",
        ),
        (
            {"opportunity_coverage_identity": qb.ID_A[:-1]},
            "invalid_digest",
            "opportunity_coverage_identity",
        ),
    ],
)
def test_exclusion_version_and_digest_rules(fields: dict, code: str, field: str) -> None:
    baseline = dict(_build([qb.processed_talk("a.md", 1)]), **fields)
    issues = [(i.code, i.path) for i in baseline_issues(baseline, path='$["b"]')]
    assert issues == [(code, f'$["b"]["{field}"]')]
    # an all-inclusive baseline (no batch) is a valid baseline in itself
    inclusive = dict(_build([]), active_batch_excluded=False, excluded_filenames=[])
    assert baseline_issues(inclusive) == []


@settings(max_examples=60, deadline=None)
@given(
    cohort=st.lists(
        st.tuples(st.integers(min_value=-20, max_value=40), st.booleans(), st.booleans()),
        max_size=12,
    )
)
def test_any_cohort_builds_a_self_consistent_baseline(cohort: list[tuple[int, bool, bool]]) -> None:
    talks = [
        qb.processed_talk(
            f"t{i}.md",
            score,
            identity=qb.ID_B if other_identity else qb.ID_A,
            outcomes=("undetected",) if evaluable else ("not_evaluable",),
        )
        for i, (score, other_identity, evaluable) in enumerate(cohort)
    ]
    baseline = _build(talks)
    assert baseline_issues(baseline) == []
    assert baseline["eligible_talk_count"] == len(cohort)
    if baseline["raw_score_comparison_status"] == "available":
        total = sum(score for score, _, _ in cohort)
        expected = (Decimal(total) / len(cohort)).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_EVEN
        )
        assert Decimal(str(baseline["average_pattern_score"])) == expected
        assert baseline["pattern_score_sum"] == total
        assert len({other for _, other, _ in cohort}) == 1
    else:
        assert baseline["average_pattern_score"] is None
