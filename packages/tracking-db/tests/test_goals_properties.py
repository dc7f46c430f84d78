"""Properties of goal verification over generated vault histories (hypothesis).

The rubric's promises, checked on any history, not just the scripted one:
a goal is never judged on a talk that predates it; a goal of another
generation never changes status; verification never touches the fixed
yardstick (baseline, target, issue, set_date).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_testkit.tracking_db.samples import HEX_A, HEX_B, HEX_D
from rvault_tracking_db.goals.generation import current_generation
from rvault_tracking_db.goals.metric import METRIC
from rvault_tracking_db.goals.rubric import judge
from rvault_tracking_db.goals.verify import assess
from rvault_tracking_db.mutations.plan import GOAL_VERIFICATION_FIELDS as VERIFICATION_FIELDS

SET_DATE = "2026-07-15"
DAYS = [f"2026-07-{d:02d}" for d in range(1, 32)]


def talk(index: int, day: str, detected: bool) -> dict[str, Any]:
    """The fields the generation and the metric read, as persist leaves them."""
    outcome = "detected" if detected else "undetected"
    return {
        "filename": f"talk-{index:03d}.md",
        "status": "processed",
        "processed_date": f"{day}T09:00:00+00:00",
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_catalog_fingerprint": HEX_A,
        "pattern_scoring_schema_version": 5,
        "pattern_score": 0,
        "pattern_observations": {
            "pattern_score": 0,
            "opportunity_coverage_identity": HEX_D,
            "pattern_outcomes": [{"pattern_id": "shortchanged", "outcome": outcome}],
        },
    }


def goal(kind: str, baseline: float, target: float, fingerprint: str = HEX_A) -> dict[str, Any]:
    return {
        "schema_version": 2,
        "id": "g",
        "issue": "rushing the end",
        "kind": kind,
        "antipattern_id": "shortchanged" if kind == "antipattern" else None,
        "metric": METRIC.format(pattern_id="shortchanged"),
        "baseline_value": f"x of y talks ({baseline:.2f})",
        "target": f"{target:.2f}",
        "set_date": SET_DATE,
        "set_by": "test",
        "status": "active",
        "current_value": "",
        "last_checked": None,
        "checked_by": None,
        "verification_state": "pending",
        "verification_reasons": [],
        "supersedes_goal_id": None,
        "baseline_provenance": {
            "lane": "pattern_scoring",
            "pattern_baseline": {
                "pattern_catalog_fingerprint": fingerprint,
                "pattern_scoring_schema_version": 5,
                "opportunity_coverage_identity": HEX_D,
            },
        },
    }


histories = st.lists(st.tuples(st.sampled_from(DAYS), st.booleans()), min_size=1, max_size=30)
fractions = st.floats(min_value=0, max_value=1).map(lambda f: round(f, 2))
kinds = st.sampled_from(["antipattern", "underuse"])


def vault(history: list[tuple[str, bool]]) -> list[dict[str, Any]]:
    return [talk(i, day, detected) for i, (day, detected) in enumerate(history)]


@settings(max_examples=200, deadline=None)
@given(histories, histories, kinds, fractions, fractions)
def test_talks_that_predate_the_goal_never_count(
    later: list[tuple[str, bool]],
    earlier: list[tuple[str, bool]],
    kind: str,
    baseline: float,
    target: float,
) -> None:
    talks = vault(later)
    record = goal(kind, baseline, target)
    result = assess(record, current_generation(talks), "2026-08-01")
    counted = {t["filename"]: t["processed_date"][:10] for t in talks}
    assert all(counted[f] > SET_DATE for f in result.talks)
    # Adding any number of talks processed on or before set_date changes nothing.
    old = [(day, hit) for day, hit in earlier if day <= SET_DATE]
    padded = talks + [talk(1000 + i, d, h) for i, (d, h) in enumerate(old)]
    again = assess(record, current_generation(padded), "2026-08-01")
    assert (again.status, again.current_value, again.talks) == (
        result.status,
        result.current_value,
        result.talks,
    )


@settings(max_examples=200, deadline=None)
@given(histories, kinds, fractions, fractions)
def test_another_generation_never_changes_status(
    history: list[tuple[str, bool]], kind: str, baseline: float, target: float
) -> None:
    record = goal(kind, baseline, target, fingerprint=HEX_B)
    result = assess(record, current_generation(vault(history)), "2026-08-01")
    assert result.decision in ("needs_rebaseline", "unverifiable")
    assert result.status == "active" and result.patch is None


@settings(max_examples=200, deadline=None)
@given(histories, kinds, fractions, fractions)
def test_verification_never_touches_the_yardstick(
    history: list[tuple[str, bool]], kind: str, baseline: float, target: float
) -> None:
    result = assess(goal(kind, baseline, target), current_generation(vault(history)), "2026-08-01")
    if result.patch is not None:
        assert set(result.patch["set"]) <= set(VERIFICATION_FIELDS)
        assert set(result.patch["expect"]) == set(result.patch["set"])
        assert result.patch["set"]["status"] in ("achieved", "improving", "stalled", "regressed")


@given(fractions, fractions, fractions, st.sampled_from([-1, 1]))
def test_the_rubric_is_consistent(
    baseline: float, target: float, current: float, direction: int
) -> None:
    status = judge(baseline, target, current, direction)
    meets = direction * (current - target) >= 0
    assert (status == "achieved") == meets
    if not meets and status == "improving":
        assert direction * (current - baseline) > 0
    if status == "regressed":
        assert direction * (current - baseline) < 0
