"""The ledger schema check finds the same failures inline and in forked workers."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from analysis_testdata import make_return, persisted_talk
from rvault_analysis_writer import ledger_check
from rvault_contracts.schemas import SCHEMA_ISSUE_KEYS, is_valid, schema_issues


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


@pytest.mark.parametrize(
    ("count", "broken"),
    [(3, {1, 2}), (ledger_check.PARALLEL_FROM + 4, set(range(1, ledger_check.PARALLEL_FROM + 2)))],
)
def test_failures_are_found_inline_and_in_parallel(count: int, broken: set[int]) -> None:
    # Only ledgers jsonschema-rs refuses reach python-jsonschema (and its workers).
    batch = talks(count, broken)
    found = ledger_check.ledger_issues(batch)
    assert sorted(found) == sorted(batch[i][0] for i in broken)
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


# ---------------------------------------------------------------- jsonschema-rs fast path

ARTIFACT = ("pattern-observations", 2)
CASES = (
    Path(__file__).resolve().parents[3]
    / "conformance"
    / "cases"
    / "pattern-observations"
    / "v2.json"
)


def _citation(po: dict) -> dict:
    return po["patterns_detected"][0]["evidence_citations"][0]


def _slides(po: dict) -> dict:
    citation = {
        "source": "static_slides",
        "channel": "slides",
        "slide_numbers": [1, 2],
        "slide_count": 9,
        "artifact_root": "vault",
        "artifact_path": "slides/x.pdf",
        "artifact_sha256": "d" * 64,
    }
    po["patterns_detected"][0]["evidence_citations"].append(citation)
    return citation


#: Edits on which the two validators could read the schema differently.
EDGES: dict[str, Callable[[dict], None]] = {
    "unchanged": lambda po: None,
    "line_start 0": lambda po: _citation(po).update(line_start=0),
    "line_start 3.0 (an integer to JSON Schema)": lambda po: _citation(po).update(line_start=3.0),
    "line_start 3.5": lambda po: _citation(po).update(line_start=3.5),
    "line_start true": lambda po: _citation(po).update(line_start=True),
    "line_start 10**30": lambda po: _citation(po).update(line_start=10**30, line_end=10**30),
    "quote of U+001C (whitespace to Python's \\s only)": lambda po: _citation(po).update(
        quote="\x1c"
    ),
    "quote of U+FEFF": lambda po: _citation(po).update(quote="\ufeff"),
    "quote of NBSP": lambda po: _citation(po).update(quote="\xa0"),
    "quote of a lone surrogate": lambda po: _citation(po).update(quote="\ud800"),
    "sha256 with a final newline": lambda po: _citation(po).update(artifact_sha256="b" * 64 + "\n"),
    "sha256 in Arabic-Indic digits": lambda po: _citation(po).update(artifact_sha256="\u0661" * 64),
    "artifact_path with a newline": lambda po: _citation(po).update(artifact_path="a\nb"),
    "unknown citation field": lambda po: _citation(po).update(extra=1),
    "channel unknown": lambda po: _citation(po).update(channel="radio"),
    "slides citation valid": _slides,
    "slide_numbers [1, 1.0]": lambda po: _slides(po).update(slide_numbers=[1, 1.0]),
    "slide_numbers [true, 1]": lambda po: _slides(po).update(slide_numbers=[True, 1]),
    "pattern_score 1.0": lambda po: po.update(pattern_score=1.0),
    "evidence_schema_version 2.0": lambda po: po.update(evidence_schema_version=2.0),
    "evidence_schema_version true": lambda po: po.update(evidence_schema_version=True),
    "pattern_outcomes missing": lambda po: po.pop("pattern_outcomes"),
    "not_evaluable_ids duplicated": lambda po: po["not_evaluable_ids"].append(
        po["not_evaluable_ids"][0]
    ),
    "empty pattern_id": lambda po: po["pattern_outcomes"][0].update(pattern_id=""),
    "pattern_id of one astral character": lambda po: po["pattern_outcomes"][0].update(
        pattern_id="\U0001f600"
    ),
    "line_ranges item of three (maxItems 2)": lambda po: po["source_inspection"][0].update(
        line_ranges=[[1, 30, 31]]
    ),
    "timing path without its digest (dependentRequired)": lambda po: po["source_inspection"][
        0
    ].update(timing_artifact_path="transcripts/x.segments.json"),
    "timing path with its digest": lambda po: po["source_inspection"][0].update(
        timing_artifact_path="transcripts/x.segments.json", timing_artifact_sha256="c" * 64
    ),
    "evidence_sources_used without source_comparison (else: not required)": lambda po: po[
        "patterns_detected"
    ][0].update(evidence_sources_used=["transcript"]),
    "video duration 0 (exclusiveMinimum 0)": lambda po: _video(po, 0),
    "video duration 0.001": lambda po: _video(po, 0.001),
}


def _video(po: dict, duration: float) -> None:
    po["patterns_detected"][0]["evidence_citations"].append(
        {
            "source": "delivery_video",
            "channel": "video",
            "start_seconds": 0,
            "end_seconds": 1,
            "duration_seconds": duration,
            "artifact_root": "vault",
            "artifact_path": "video/x.mp4",
            "artifact_sha256": "d" * 64,
        }
    )


def _ledger(edit: Callable[[dict], None]) -> dict:
    name = "2024-01-01-t.md"
    po = copy.deepcopy(persisted_talk(make_return(name), "a" * 64, [name])["pattern_observations"])
    edit(po)
    return po


@pytest.mark.parametrize("edit", list(EDGES), ids=list(EDGES))
def test_fast_path_accepts_only_what_python_jsonschema_accepts(edit: str) -> None:
    """jsonschema-rs may only skip python-jsonschema where python-jsonschema would accept."""
    ledger = _ledger(EDGES[edit])
    python_valid = is_valid(*ARTIFACT, ledger)
    fast = ledger_check.fast_accepts(*ARTIFACT, ledger)
    if fast:
        assert python_valid
    if edit in ("unchanged", "slides citation valid", "video duration 0.001"):
        assert python_valid
    if edit != "quote of a lone surrogate":  # Rust may fail to encode it: then no verdict
        assert fast == python_valid


def test_fast_path_agrees_on_every_declared_schema_case() -> None:
    groups = json.loads(CASES.read_text(encoding="utf-8"))
    checked = 0
    for group in groups:
        for case in group["tests"]:
            assert ledger_check.fast_accepts(*ARTIFACT, case["data"]) is case["valid"], case[
                "description"
            ]
            assert is_valid(*ARTIFACT, case["data"]) is case["valid"]
            checked += 1
    assert checked >= 2


def test_a_fast_refusal_is_worded_by_python_jsonschema() -> None:
    """A tampered ledger is refused with python-jsonschema's issues, not jsonschema-rs's."""
    name, talk = talks(1, {0})[0]
    assert not ledger_check.fast_accepts(*ARTIFACT, talk["pattern_observations"])
    found = ledger_check.ledger_issues([(name, talk)])
    expected = [
        i.to_dict(SCHEMA_ISSUE_KEYS) for i in schema_issues(*ARTIFACT, talk["pattern_observations"])
    ]
    assert found == {name: expected[: ledger_check.MAX_ISSUES]}


def test_accepted_ledgers_never_reach_python_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = talks(ledger_check.PARALLEL_FROM + 2, {3})
    seen: list[str] = []

    def spy(artifact: str, version: int, document: Any) -> list:
        seen.append(document["patterns_detected"][0]["evidence_citations"][0]["artifact_path"])
        return schema_issues(artifact, version, document)

    monkeypatch.setattr(ledger_check, "schema_issues", spy)
    found = ledger_check.ledger_issues(batch)
    assert list(found) == [batch[3][0]]
    assert seen == [f"transcripts/{batch[3][0]}.txt"]


def test_the_ledger_contract_gets_the_fast_path() -> None:
    assert ledger_check.fast_validator(*ARTIFACT) is not None


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "format": "date"},  # jsonschema-rs only annotates formats
        {"properties": {"a": {"unevaluatedProperties": False}}},
        {"$defs": {"a": {"patternProperties": {"^a": {"type": "string"}}}}},
        {"allOf": [{"$ref": "urn:rvault:db-resource:v1"}]},
        {"items": [{"type": "string"}]},
    ],
)
def test_keywords_without_pinned_agreement_get_no_fast_path(schema: dict) -> None:
    assert not ledger_check._fast_path_safe(schema)
    assert ledger_check._fast_path_safe({"properties": {"format": {"type": "string"}}})
