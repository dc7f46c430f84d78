"""The overview's next-action rules and page names, as a table of cases."""

from __future__ import annotations

from typing import Any

import pytest
from rvault_analysis_writer.site.evidence import (
    Evidence,
    ManifestState,
    SlidesState,
    TranscriptState,
)
from rvault_analysis_writer.site.overview import _Facts, next_action, page_name, pattern_score
from rvault_analysis_writer.site.receipts import Receipt

FP = "a" * 64
BOUND = Receipt("run", "1", 5, "processed", "2026-01-01T00:00:00+00:00", "b" * 64)


def evidence(transcript: str = "valid") -> Evidence:
    return Evidence(
        transcript=TranscriptState("t.txt", transcript, "q", "t", 500, True, True),
        deck=False,
        deck_path=None,
        deck_state="missing",
        slides=SlidesState(None, False, False, "none"),
        manifest=ManifestState(None, "missing", False, (), None, None),
        findings=(),
    )


def facts(**overrides: Any) -> _Facts:
    values: dict[str, Any] = {
        "status": "processed",
        "generation": "current",
        "fingerprint": FP,
        "catalog_fingerprint": FP,
        "receipt": BOUND,
        "claim": None,
        "evidence": evidence(),
    }
    values.update(overrides)
    return _Facts(**values)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, "none"),
        ({"status": "skipped_duplicate"}, "none (skipped duplicate)"),
        ({"status": "skipped_download_failed"}, "add a local source or fix the download"),
        ({"status": "reprocessing-inflight", "claim": ("r", "7")}, "finish batch r/7"),
        ({"status": "pending", "receipt": None}, "claim it for a worker"),
        ({"status": "needs-reprocessing"}, "claim it for reprocessing"),
        ({"status": "weird"}, "check the status 'weird'"),
        ({"receipt": None}, "no completed-claim receipt"),
        ({"receipt": Receipt("r", "1", 1, "processed", None, None)}, "no completed-claim receipt"),
        ({"generation": "legacy_unbaselineable"}, "reprocess under the current catalog"),
        ({"fingerprint": "c" * 64}, "the pattern catalog changed"),
        ({"evidence": evidence("invalid")}, "re-import the transcript"),
        ({"status": "processed_partial"}, "add the missing evidence"),
    ],
)
def test_next_action_first_matching_rule(overrides: dict[str, Any], expected: str) -> None:
    action = next_action(facts(**overrides))
    assert action == expected if expected == "none" else expected in action


def test_page_names_are_portable_and_unique() -> None:
    taken: set[str] = set()
    plain = page_name("2024-04-10-talk.md", taken)
    assert plain == "talk-2024-04-10-talk.html"
    upper = page_name("2024-04-10-Talk.md", taken)
    assert upper != plain and upper.startswith("talk-2024-04-10-talk-")
    hostile = page_name('../<script>"x".md', taken)
    assert hostile.startswith("talk-script-x-") and "/" not in hostile and "<" not in hostile
    assert len(taken) == 3


def test_pattern_score_reads_the_scalar_or_the_nested_ledger() -> None:
    assert pattern_score({"pattern_score": 4}) == 4
    assert pattern_score({"pattern_observations": {"pattern_score": {"score": 2}}}) == 2
    assert pattern_score({"pattern_score": True}) is None
    assert pattern_score({}) is None
