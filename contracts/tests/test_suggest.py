"""Closest valid names for a typo (issue 25)."""

from __future__ import annotations

from rvault_contracts.suggest import closest, did_you_mean


def test_a_typo_gets_the_nearest_names_best_first() -> None:
    ids = ["bookends", "book-end-callback", "rule-of-three", "unifying-visual-theme"]
    assert closest("bookend", ids)[0] == "bookends"
    assert "rule-of-three" not in closest("bookend", ids)


def test_nothing_close_says_nothing() -> None:
    assert closest("zzz", ["alpha", "beta"]) == []
    assert did_you_mean("zzz", ["alpha", "beta"]) == ""


def test_the_message_tail_quotes_each_name() -> None:
    assert did_you_mean("2024-01-01-tak.md", ["2024-01-01-talk.md", 7, None]) == (
        "; did you mean '2024-01-01-talk.md'?"
    )
