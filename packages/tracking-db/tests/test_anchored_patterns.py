"""Anchored patterns match whole values: ``re.match`` with ``$`` let a trailing newline in."""

from __future__ import annotations

import copy

import pytest
from rvault_testkit.tracking_db.samples import example_database
from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.ids import is_google_drive_id, is_youtube_id


def test_ids_refuse_a_trailing_newline() -> None:
    assert is_youtube_id("dQw4w9WgXcQ") and not is_youtube_id("dQw4w9WgXcQ\n")
    assert is_google_drive_id("1AbCdEfGhIjK") and not is_google_drive_id("1AbCdEfGhIjK\n")


@pytest.mark.parametrize(("field", "good"), [("sha256", "c" * 64), ("bg_hex", "ffffff")])
def test_qr_artifact_values_refuse_a_trailing_newline(field: str, good: str) -> None:
    database = copy.deepcopy(example_database())
    artifact = database["qr_codes"][0]["artifacts"][0]
    artifact[field] = good
    assert not assess_database(database).fatal
    artifact[field] = good + "\n"
    fatal = assess_database(database).fatal
    assert [(i.code, i.path) for i in fatal] == [
        ("invalid_value", f'$["qr_codes"][0]["artifacts"][0]["{field}"]')
    ]
