"""The spliced candidate encoding is exactly ``artifact_bytes`` of the candidate."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.tracking_db.samples import (
    example_database,
    example_resource,
    realistic_database,
)
from rvault_tracking_db.mutations.encoding import candidate_bytes, splice_members


def _variants() -> list[tuple[str, Any]]:
    def config(d: dict[str, Any]) -> dict[str, Any]:
        out = dict(d)
        out["config"] = dict(
            d["config"], python_path="/usr/bin/python3", extra={"é": [1, 2.5, None]}
        )
        return out

    def resources(d: dict[str, Any]) -> dict[str, Any]:
        out = dict(d)
        out["resources"] = [*d["resources"], dict(example_resource(), talk_slug="new")]
        return out

    def talk(d: dict[str, Any]) -> dict[str, Any]:
        out = dict(d)
        out["talks"] = list(d["talks"])
        out["talks"][1] = dict(d["talks"][1], title="Reviewed — title", status="needs-reprocessing")
        return out

    def both(d: dict[str, Any]) -> dict[str, Any]:
        return talk(config(d))

    return [
        ("config", config),
        ("record array", resources),
        ("one talk", talk),
        ("config+talk", both),
    ]


@pytest.mark.parametrize(("name", "change"), _variants(), ids=[n for n, _ in _variants()])
def test_splice_equals_full_encoding(name: str, change) -> None:
    before = realistic_database(5, outcomes=3)
    original = artifact_bytes(before)
    candidate = change(before)
    assert candidate_bytes(original, before, candidate) == artifact_bytes(candidate)


def test_hand_formatted_input_falls_back_to_full_encoding() -> None:
    before = example_database()
    original = json.dumps(before, indent=4).encode()
    candidate = dict(before, config=dict(before["config"], python_path="/x"))
    assert splice_members(original, before, candidate) is None
    assert candidate_bytes(original, before, candidate) == artifact_bytes(candidate)


def test_a_stale_block_is_never_reused() -> None:
    before = example_database()
    stale = copy.deepcopy(before)
    stale["config"]["python_path"] = "/stale"
    original = artifact_bytes(stale)  # bytes that do not encode `before`
    candidate = dict(before, config=dict(before["config"], python_path="/x"))
    assert splice_members(original, before, candidate) is None
    assert candidate_bytes(original, before, candidate) == artifact_bytes(candidate)
