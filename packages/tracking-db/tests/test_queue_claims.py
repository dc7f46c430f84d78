"""Deep validation of stored claims v1-v5 (``claim_issues``), the reader the assessment calls."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
import _queue_builders as qb
from rvault_tracking_db.queue.baseline import build_baseline
from rvault_tracking_db.queue.claims import build_claim, claim_issues, release_claim

NOW = "2026-07-31T18:00:00+00:00"
LATER = "2026-07-31T19:00:00+00:00"
H = "b" * 64


def _v5() -> dict:
    baseline = build_baseline(
        [qb.processed_talk("a.md", 2)],
        batch_filenames=["x.md"],
        as_of=NOW,
        catalog_fingerprint=qb.FP,
    ).baseline
    return build_claim(
        run_id="r",
        batch_id="b",
        claimed_at=NOW,
        previous_status="pending",
        reprocess_generation=1,
        baseline=baseline,
    )


def _legacy(version: int | None) -> dict:
    claim = {
        "run_id": "r",
        "batch_id": "b",
        "claimed_at": NOW,
        "previous_status": "needs-reprocessing",
        "reprocess_generation": 2,
        "state": "claimed",
    }
    if version is not None:
        claim["schema_version"] = version
    if version in (3, 4):
        baseline = _v5()["adherence_baseline"]
        for key in (
            "opportunity_coverage_identity",
            "raw_score_comparison_status",
            "raw_score_comparison_reason",
            "scored_talk_count",
        ):
            del baseline[key]
        baseline.update(
            schema_version=1,
            pattern_scoring_schema_version=version,
            eligible_talk_count=1,
            pattern_score_sum=2,
            average_pattern_score=2.0,
        )
        claim.update(required_return_schema_version=version, adherence_baseline=baseline)
    return claim


def _codes(claim: object, **kw: str) -> set[str]:
    return {i.code for i in claim_issues(claim, **kw)}


@pytest.mark.parametrize("version", [None, 1, 2, 3, 4])
def test_legacy_claims_are_valid_as_stored(version: int | None) -> None:
    assert claim_issues(_legacy(version)) == []


def test_fresh_v5_claim_is_valid_and_binds_its_member() -> None:
    claim = _v5()
    assert claim_issues(claim, filename="x.md") == []
    assert _codes(claim, filename="other.md") == {"member_not_excluded"}


def test_suffix_fields_are_forbidden_while_claimed() -> None:
    for key, value in (
        ("released_at", LATER),
        ("release_reason", "x"),
        ("result_status", "processed"),
        ("result_payload_sha256", H),
    ):
        claim = dict(_v5(), **{key: value})
        assert _codes(claim) == {"suffix_field_while_claimed"}, key


def test_closed_claims_need_their_suffix() -> None:
    released = release_claim(_v5(), released_at=LATER, reason="recovered")
    assert claim_issues(released) == []
    completed = dict(
        released,
        state="completed",
        release_reason="completed",
        result_status="processed",
        result_payload_sha256=H,
    )
    assert claim_issues(completed) == []
    assert _codes({k: v for k, v in completed.items() if k != "result_payload_sha256"}) == {
        "missing_field"
    }
    assert _codes(dict(completed, result_status="done")) == {"invalid_value"}
    assert _codes(dict(released, released_at="2026-07-31T17:00:00+00:00")) == {
        "released_before_claimed"
    }
    v1_completed = dict(
        _legacy(None),
        state="completed",
        released_at=LATER,
        release_reason="completed",
        result_status="processed",
    )
    assert claim_issues(v1_completed) == []
    assert _codes(dict(v1_completed, result_payload_sha256=H)) == {"unknown_field"}


def test_release_advances_v1_to_v2_and_keeps_the_snapshot() -> None:
    v1 = _legacy(None)
    closed = release_claim(v1, released_at=LATER, reason="recovered")
    assert closed["schema_version"] == 2
    assert {
        k: v
        for k, v in closed.items()
        if k not in ("schema_version", "state", "released_at", "release_reason")
    } == {k: v for k, v in v1.items() if k != "state"}
    assert claim_issues(closed) == []
    v5 = _v5()
    closed5 = release_claim(v5, released_at=LATER, reason="recovered")
    assert closed5["adherence_baseline"] == v5["adherence_baseline"]
    assert closed5["schema_version"] == 5


@pytest.mark.parametrize("version", [6, 99])
def test_unknown_future_versions_fail_closed_without_interpretation(version: int) -> None:
    claim = dict(_v5(), schema_version=version, anything="goes")
    assert [i.code for i in claim_issues(claim)] == ["unsupported_claim_version"]


def test_version_axes_are_bound() -> None:
    claim = _v5()
    assert _codes(dict(claim, required_return_schema_version=4)) == {"return_version_mismatch"}
    assert _codes(dict(claim, schema_version=True)) == {"invalid_claim_version"}
    v4 = _legacy(4)
    assert _codes(dict(v4, adherence_baseline=claim["adherence_baseline"])) == {
        "baseline_version_mismatch",
        "scoring_version_mismatch",
    }
    v3 = _legacy(3)
    bad = copy.deepcopy(v3)
    bad["adherence_baseline"]["pattern_scoring_schema_version"] = 4
    assert _codes(bad) == {"scoring_version_mismatch"}
    drifted = copy.deepcopy(claim)
    drifted["adherence_baseline"]["as_of"] = LATER
    assert _codes(drifted) == {"baseline_as_of_mismatch"}


@pytest.mark.parametrize(
    ("mutation", "code"),
    [
        ({"state": "abandoned"}, "invalid_claim_state"),
        ({"run_id": ""}, "invalid_type"),
        ({"claimed_at": "2026-07-31T18:00:00"}, "invalid_timestamp"),
        ({"previous_status": "processed"}, "invalid_value"),
        ({"reprocess_generation": 0}, "invalid_type"),
        ({"reprocess_generation": 1.0}, "invalid_type"),
        ({"surprise": 1}, "unknown_field"),
    ],
)
def test_field_rules(mutation: dict, code: str) -> None:
    assert code in _codes(dict(_v5(), **mutation))


def test_missing_fields_and_non_objects() -> None:
    claim = _v5()
    del claim["adherence_baseline"]
    assert _codes(claim) == {"missing_field"}
    assert _codes("claim") == {"claim_not_object"}


def _issues(claim: object, **kw: str) -> list[tuple[str, str]]:
    return [(i.code, i.path) for i in claim_issues(claim, **kw)]


def _with_baseline(claim: dict, **fields: object) -> dict:
    changed = copy.deepcopy(claim)
    changed["adherence_baseline"].update(fields)
    return changed


BASELINE = '$["adherence_baseline"]'


def test_a_claim_baseline_must_exclude_its_batch() -> None:
    # a self-consistent all-inclusive baseline is a valid baseline, but not a claim's
    inclusive = _with_baseline(_v5(), active_batch_excluded=False, excluded_filenames=[])
    assert _issues(inclusive) == [("batch_not_excluded", BASELINE + '["active_batch_excluded"]')]
    assert _issues(inclusive, filename="x.md") == [
        ("batch_not_excluded", BASELINE + '["active_batch_excluded"]'),
        ("member_not_excluded", BASELINE + '["excluded_filenames"]'),
    ]


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"excluded_filenames": []}, "empty_exclusion"),
        ({"active_batch_excluded": False}, "unexpected_exclusion"),
    ],
)
def test_exclusion_flag_and_list_disagreeing_stop_before_the_binding(
    fields: dict, code: str
) -> None:
    """A malformed nested baseline reports only its own issue, not the claim binding's."""
    claim = _with_baseline(_v5(), **fields)
    assert _issues(claim, filename="x.md") == [(code, BASELINE + '["excluded_filenames"]')]


def test_invalid_digests_in_a_claim() -> None:
    completed = dict(
        release_claim(_v5(), released_at=LATER, reason="completed"),
        state="completed",
        result_status="processed",
        result_payload_sha256=H.upper(),
    )
    assert _issues(completed) == [("invalid_digest", '$["result_payload_sha256"]')]
    v2 = dict(_legacy(2), state="completed", released_at=LATER, release_reason="completed")
    v2.update(result_status="processed", result_payload_sha256="b" * 63)
    assert _issues(v2, path='$["h"]') == [("invalid_digest", '$["h"]["result_payload_sha256"]')]
    fingerprint = _with_baseline(_v5(), pattern_catalog_fingerprint=qb.FP.upper())
    assert _issues(fingerprint) == [
        ("invalid_digest", BASELINE + '["pattern_catalog_fingerprint"]')
    ]
    identity = _with_baseline(_v5(), opportunity_coverage_identity="c" * 63)
    assert _issues(identity) == [("invalid_digest", BASELINE + '["opportunity_coverage_identity"]')]


@pytest.mark.parametrize("version", ["2", 2.0, None, True])
def test_a_non_integer_baseline_version_is_invalid_not_unsupported(version: object) -> None:
    """Reachable only through the validator: the owner read refuses the same baseline
    first with the assessment's ``invalid_schema_version`` (see the CLI test below)."""
    claim = _with_baseline(_v5(), schema_version=version)
    assert _issues(claim) == [("invalid_baseline_version", BASELINE + '["schema_version"]')]


def _stored(tmp_path: Path, claim: dict) -> Path:
    talk = qb.pending_talk(
        "x.md", status="reprocessing-inflight", reprocess_generation=1, _queue_claim=claim
    )
    return qb.write_db(tmp_path / "vault", qb.database([qb.processed_talk("a.md", 2), talk]))


STORED = '$["talks"][1]["_queue_claim"]'


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        (
            {"active_batch_excluded": False, "excluded_filenames": []},
            "batch_not_excluded",
            "active_batch_excluded",
        ),
        ({"excluded_filenames": []}, "empty_exclusion", "excluded_filenames"),
        ({"active_batch_excluded": False}, "unexpected_exclusion", "excluded_filenames"),
        (
            {"pattern_catalog_fingerprint": "F" * 64},
            "invalid_digest",
            "pattern_catalog_fingerprint",
        ),
        (
            {"opportunity_coverage_identity": "xyz"},
            "invalid_digest",
            "opportunity_coverage_identity",
        ),
        # the owner assessment's version check runs before the deep validator
        ({"schema_version": "2"}, "invalid_schema_version", "schema_version"),
    ],
)
def test_the_owner_read_refuses_a_malformed_stored_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot_file, fields, code, field
) -> None:
    db = _stored(tmp_path, _with_baseline(_v5(), **fields))
    before = snapshot_file(db)
    for args in (["read", db], ["queue", db, "inspect"]):
        h.assert_refused(
            *h.invoke(capsys, *args), code, f'{STORED}["adherence_baseline"]["{field}"]'
        )
    assert snapshot_file(db) == before


def test_the_owner_read_refuses_a_malformed_closed_claim_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshot_file
) -> None:
    completed = dict(
        release_claim(_v5(), released_at=LATER, reason="completed"),
        state="completed",
        result_status="processed",
        result_payload_sha256="not-a-digest",
    )
    db = _stored(tmp_path, completed)
    before = snapshot_file(db)
    h.assert_refused(
        *h.invoke(capsys, "read", db), "invalid_digest", f'{STORED}["result_payload_sha256"]'
    )
    assert snapshot_file(db) == before
