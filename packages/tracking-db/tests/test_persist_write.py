"""``persist_write``: the owner write rvault-returns persist installs a batch through."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal
from rvault_testkit.plugin import file_state
from rvault_tracking_db import api
from rvault_tracking_db.queue.claims import claim_issues

NOW = "2026-07-31T18:00:00+00:00"
LATER = "2026-08-01T09:00:00+00:00"
RECEIPT = "c" * 64


def _claim(version: int | None) -> dict:
    claim = {
        "run_id": "r",
        "batch_id": "b",
        "claimed_at": NOW,
        "previous_status": "pending",
        "reprocess_generation": 1,
        "state": "claimed",
    }
    if version is not None:
        claim["schema_version"] = version
    return claim


def test_complete_claim_adds_only_the_suffix_and_closes_v1_as_v2() -> None:
    for version, closed_as in ((None, 2), (2, 2)):
        claim = _claim(version)
        closed = api.persist_write.complete_claim(
            claim, released_at=LATER, result_status="processed", result_payload_sha256=RECEIPT
        )
        assert closed["schema_version"] == closed_as
        assert closed["state"] == "completed" and closed["release_reason"] == "completed"
        assert (closed["released_at"], closed["result_payload_sha256"]) == (LATER, RECEIPT)
        assert claim["state"] == "claimed"  # the input is never mutated
        snapshot = ("run_id", "batch_id", "claimed_at", "previous_status", "reprocess_generation")
        assert {k: closed[k] for k in snapshot} == {k: claim[k] for k in snapshot}
        assert set(closed) - set(claim) <= {
            "schema_version",
            "released_at",
            "release_reason",
            "result_status",
            "result_payload_sha256",
        }
        assert claim_issues(closed, filename="a.md") == []


def test_complete_claim_refuses_a_closed_generation() -> None:
    closed = {**_claim(2), "state": "released", "released_at": LATER, "release_reason": "x"}
    with pytest.raises(Refusal) as refused:
        api.persist_write.complete_claim(
            closed, released_at=LATER, result_status="processed", result_payload_sha256=RECEIPT
        )
    assert refused.value.code == "claim_not_active"


def _vault(tmp_path: Path) -> Path:
    talks = [qb.pending_talk("a.md", _queue_claim=_claim(2)), qb.processed_talk("b.md", 3)]
    path = tmp_path / qb.DB_NAME
    path.write_bytes(artifact_bytes(qb.database(talks)))
    return path


def test_commit_talks_installs_the_candidate_bound_to_the_read(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    with api.persist_write.locked_read(db) as (read, lock):
        talk = dict(read.database["talks"][0])
        talk["status"] = "processed"
        talk["_queue_claim"] = api.persist_write.complete_claim(
            talk["_queue_claim"],
            released_at=LATER,
            result_status="processed",
            result_payload_sha256=RECEIPT,
        )
        candidate, report = api.persist_write.commit_talks(read, {0: talk}, lock)
    assert report.database_written and report.durability_state == "durable"
    assert report.input_sha256 == read.sha256
    assert db.read_bytes() == artifact_bytes(candidate)  # spliced bytes == canonical encoding
    assert api.read_database(db).database["talks"][0]["_queue_claim"]["state"] == "completed"


def test_commit_talks_refuses_a_candidate_the_owner_read_would_refuse(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    before = file_state(db)
    with api.persist_write.locked_read(db) as (read, lock):
        broken = dict(read.database["talks"][0])
        broken["_queue_claim"] = {**broken["_queue_claim"], "released_at": LATER}  # while claimed
        with pytest.raises(Refusal) as refused:
            api.persist_write.commit_talks(read, {0: broken}, lock)
    assert refused.value.code == "candidate_invalid"
    assert file_state(db) == before


def test_commit_talks_refuses_a_database_changed_since_the_read(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    with api.persist_write.locked_read(db) as (read, lock):
        data = db.read_bytes()
        db.unlink()
        db.write_bytes(data)  # same bytes, another file generation
        after = file_state(db)
        talk = {**read.database["talks"][0], "status": "processed"}
        with pytest.raises(Refusal) as refused:
            api.persist_write.commit_talks(read, {0: talk}, lock)
    assert refused.value.code == "input_changed"
    assert file_state(db) == after


def test_post_batch_baseline_is_all_inclusive() -> None:
    talks = [qb.processed_talk("a.md", 2), qb.processed_talk("b.md", 4)]
    baseline = api.persist_write.post_batch_baseline(talks, as_of=LATER, catalog_fingerprint=qb.FP)
    assert baseline["active_batch_excluded"] is False and baseline["excluded_filenames"] == []
    assert (baseline["eligible_talk_count"], baseline["pattern_score_sum"]) == (2, 6)
    assert baseline["average_pattern_score"] == 3.0
    assert api.baseline_issues(baseline) == []


def test_canonical_timestamp_is_the_queue_owner_spelling() -> None:
    assert api.persist_write.canonical_timestamp("2026-08-01T11:00:00+02:00") == LATER
    assert api.persist_write.canonical_timestamp("2026-08-01") is None
    assert api.persist_write.canonical_timestamp("2026-08-01T09:00:00") is None


def test_commit_talks_is_the_apply_protocol_install(tmp_path: Path) -> None:
    """The writer's fault hook reaches the install; a fault before it leaves the file as it was."""
    db = _vault(tmp_path)
    before = file_state(db)
    steps: list[str] = []

    def fault(step: str) -> None:
        steps.append(step)
        if step == "before_replace":
            raise OSError("injected")

    with api.persist_write.locked_read(db) as (read, lock):
        talk = {**read.database["talks"][0], "status": "processed"}
        with pytest.raises(Refusal) as refused:
            api.persist_write.commit_talks(read, {0: talk}, lock, fault=fault)
    assert refused.value.code == "io_error" and refused.value.context["file"]
    assert "after_lock" in steps and steps[-1] == "before_replace"
    assert file_state(db) == before


def test_the_owner_write_request_needs_no_digest_but_binds_one_given(tmp_path: Path) -> None:
    from rvault_tracking_db.apply_protocol import ApplyRequest, session

    db = _vault(tmp_path)
    ApplyRequest.owner_write().check()  # no expected_sha256_required: persist has no dry run
    with session(db, ApplyRequest.owner_write()) as current:
        assert current.lock is not None and current.result.sha256 is not None
    with pytest.raises(Refusal) as refused, session(db, ApplyRequest.owner_write("0" * 64)):
        pass
    assert refused.value.code == "expected_sha256_mismatch"
    with pytest.raises(Refusal) as refused:
        ApplyRequest(apply=True).check()  # every other writing command still requires it
    assert refused.value.code == "expected_sha256_required"
