"""Re-assessing a candidate derived from an assessed database.

``assess_database(..., derived_from=...)`` skips talks that are the very same
object at the same index and had no issue before. It must report exactly
what a full assessment of the candidate reports.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rvault_testkit.tracking_db.samples import realistic_database
from rvault_tracking_db.assessment import assess_database

BASE = realistic_database(6)
CORRUPTIONS = [
    ("reprocess_generation", -1),
    ("transcript_source", None),
    ("schema_version", 99),
    ("filename", BASE["talks"][0]["filename"]),  # duplicates talk 0
    ("co_presenter", "yes"),
]


def _full_and_incremental(candidate: dict[str, Any], prior: dict[str, Any]) -> tuple:
    prior_assessment = assess_database(prior)
    full = assess_database(candidate)
    incremental = assess_database(candidate, derived_from=(prior, prior_assessment))
    return full, incremental


@settings(max_examples=60, deadline=None)
@given(
    prior_bad=st.dictionaries(st.integers(0, 5), st.sampled_from(CORRUPTIONS), max_size=2),
    edits=st.dictionaries(
        st.integers(0, 5),
        st.one_of(st.none(), st.sampled_from(CORRUPTIONS), st.just("copy")),
        max_size=3,
    ),
)
def test_incremental_assessment_equals_a_full_one(
    prior_bad: dict[int, tuple[str, Any]], edits: dict[int, Any]
) -> None:
    prior = copy.deepcopy(BASE)
    for index, (key, value) in prior_bad.items():
        prior["talks"][index][key] = value
    candidate = dict(prior)
    candidate["talks"] = list(prior["talks"])
    for index, edit in edits.items():
        if edit is None:
            candidate["talks"][index] = None  # not even an object
        elif edit == "copy":  # equal value, new object: assessed again
            candidate["talks"][index] = copy.deepcopy(prior["talks"][index])
        else:
            talk = copy.deepcopy(prior["talks"][index])
            talk[edit[0]] = edit[1]
            candidate["talks"][index] = talk
    full, incremental = _full_and_incremental(candidate, prior)
    assert incremental == full


def test_a_talk_replaced_in_place_is_assessed_again() -> None:
    prior = copy.deepcopy(BASE)
    candidate = dict(prior)
    candidate["talks"] = list(prior["talks"])
    candidate["talks"][3] = dict(prior["talks"][3], reprocess_generation="two")
    full, incremental = _full_and_incremental(candidate, prior)
    assert [i.path for i in incremental.fatal] == ['$["talks"][3]["reprocess_generation"]']
    assert incremental == full


def test_a_changed_root_version_disables_reuse() -> None:
    prior = copy.deepcopy(BASE)
    legacy = {key: value for key, value in prior.items() if key != "schema_version"}
    full, incremental = _full_and_incremental(legacy, prior)
    assert incremental == full
    assert incremental.root_version == 0
