"""Joining the workers' changes into the batch's one source plan (no cluster needed)."""

from __future__ import annotations

import pytest
from rvault_archive_batch.planning import BatchPlan
from rvault_archive_batch.registration import joined_plan
from rvault_contracts.cli import Refusal

PLANNED = "a" * 64


def outcome(key: str, mutations: list[dict], read: str | None = PLANNED) -> dict:
    return {"key": key, "state": "done", "mutations": mutations, "read_sha256": read}


def record(path: str) -> dict:
    return {"kind": "record_pptx", "expect": {"$missing": True}, "record": {"pptx_path": path}}


def test_changes_join_in_task_order_and_a_shared_change_counts_once() -> None:
    plan = BatchPlan("/v/tracking-database.json", PLANNED, "/v")
    transcript = {"kind": "register_transcript", "filename": "t.md",
                  "expect": {"$missing": True}, "value": "transcripts/t.txt"}  # fmt: skip
    outcomes = [
        outcome("deck:a.md", [record("shared.pptx")]),
        outcome("slides:a.md", [], read=None),
        {"key": "deck:c.md", "state": "failed", "error": {"code": "x"}},
        outcome("transcript:t.md", [transcript]),
        outcome("deck:b.md", [record("shared.pptx")]),
    ]
    assert joined_plan(plan, outcomes) == {
        "schema_version": 1,
        "mutations": [record("shared.pptx"), transcript],
    }


def test_a_worker_that_read_other_bytes_refuses_the_whole_registration() -> None:
    plan = BatchPlan("/v/tracking-database.json", PLANNED, "/v")
    outcomes = [outcome("deck:a.md", [record("a.pptx")]),
                outcome("deck:b.md", [record("b.pptx")], read="b" * 64)]  # fmt: skip
    with pytest.raises(Refusal) as refused:
        joined_plan(plan, outcomes)
    assert refused.value.code == "database_changed"
    assert refused.value.context["tasks"] == ["deck:b.md"]
    assert "rerun" in refused.value.context["hint"] or "again" in refused.value.context["hint"]
