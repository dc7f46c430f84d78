"""A not_evaluable reason never reads against the page's own source table (issue 25).

``missing_required_source_coverage`` beside a source the inspection table
shows inspected and complete looked false; the unmet part of the gate is
named instead (the source is not absence-capable, or a group member was not
inspected). A reason that agrees with the table is shown unchanged.
"""

from __future__ import annotations

from rvault_analysis_writer.talk_view import _not_evaluable

REASON = "missing_required_source_coverage"


def _po(slides: dict | None, groups: list[list[str]]) -> dict:
    inspection = [
        {
            "source": "transcript",
            "coverage_complete": True,
            "absence_capability_complete": True,
        }
    ]
    if slides is not None:
        inspection.append({"source": "static_slides", **slides})
    row = {"pattern_id": "unifying-visual-theme", "reason_code": REASON}
    return {
        "source_inspection": inspection,
        "not_evaluable": [{**row, "required_source_groups": groups}],
    }


def test_complete_slides_that_cannot_carry_an_absence_say_so() -> None:
    slides = {
        "coverage_complete": True,
        "absence_capability_complete": False,
        "absence_capability_reason": "video_extracted_pdf_without_verified_region",
    }
    (row,) = _not_evaluable(_po(slides, [["static_slides"]])).rows
    assert row[1] == (
        f"{REASON} (unmet gate: static_slides complete but not absence-capable: "
        "video_extracted_pdf_without_verified_region)"
    )


def test_a_group_member_not_inspected_is_named() -> None:
    (row,) = _not_evaluable(_po(None, [["transcript", "delivery_video"]])).rows
    assert row[1] == f"{REASON} (unmet gate: delivery_video not inspected)"


def test_a_reason_the_table_agrees_with_is_unchanged() -> None:
    (row,) = _not_evaluable(_po(None, [["static_slides"]])).rows
    assert row[1] == REASON
