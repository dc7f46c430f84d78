"""The ledger schema check finds the same failures inline and in forked workers."""

from __future__ import annotations

import copy

import pytest
from analysis_testdata import make_return, persisted_talk
from rvault_analysis_writer import ledger_check


def talks(count: int, broken: set[int]) -> list[tuple[str, dict]]:
    out = []
    for i in range(count):
        name = f"2024-01-{i + 1:02d}-t.md"
        talk = persisted_talk(make_return(name), "a" * 64, [name])
        if i in broken:
            citation = talk["pattern_observations"]["patterns_detected"][0]["evidence_citations"]
            citation[0]["line_start"] = 0
        out.append((name, talk))
    return out


@pytest.mark.parametrize("count", [3, ledger_check.PARALLEL_FROM + 4])
def test_failures_are_found_inline_and_in_parallel(count: int) -> None:
    batch = talks(count, {1, count - 1})
    found = ledger_check.ledger_issues(batch)
    assert sorted(found) == sorted([batch[1][0], batch[count - 1][0]])
    for issues in found.values():
        assert any("line_start" in issue["path"] for issue in issues)
    assert ledger_check._JOBS == []


def test_ledgers_without_a_contract_are_not_checked() -> None:
    name, talk = talks(1, {0})[0]
    legacy = copy.deepcopy(talk)
    legacy["pattern_observations"]["evidence_schema_version"] = 1
    del legacy["pattern_observations"]["pattern_outcomes"]
    assert ledger_check.ledger_contract(legacy) is None
    assert ledger_check.ledger_issues([(name, legacy)]) == {}
