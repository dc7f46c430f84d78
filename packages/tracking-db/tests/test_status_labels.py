"""The status table's label: first-time processing is not reprocessing (issue 25)."""

from __future__ import annotations

from rvault_tracking_db.status import status_label


def test_a_first_time_claim_reads_as_processing() -> None:
    row = {"status": "reprocessing-inflight", "processed_date": None}
    assert status_label(row) == "processing"


def test_a_claim_of_a_processed_talk_reads_as_reprocessing() -> None:
    row = {"status": "reprocessing-inflight", "processed_date": "2024-01-02"}
    assert status_label(row) == "reprocessing-inflight"


def test_other_statuses_are_shown_as_stored() -> None:
    for status in ("pending", "processed", "needs-reprocessing", "skipped_no_sources"):
        assert status_label({"status": status, "processed_date": None}) == status
