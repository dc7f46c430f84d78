"""A quote found nowhere names its closest transcript line and the first differing character.

Exact matching is unchanged (a typographic apostrophe is still a miss); the
diagnosis only says where and why, so the worker can fix the quote.
"""

from __future__ import annotations

from rvault_returns_persistence.quote_locator import NormalizedText, near_miss

TRANSCRIPT = (
    "good morning everyone\n"
    "we don't stop here now because\n"
    "the   42 reasons\tare many\n"
    "and that is all\n"
)


def test_a_typographic_apostrophe_names_its_line_and_both_characters() -> None:
    text = NormalizedText(TRANSCRIPT)
    quote = "we don\u2019t stop here now"
    assert text.find_once(quote) == (None, 0)  # still exact: a miss
    near = near_miss(text, quote)
    assert near is not None
    assert (near.line_start, near.line_end, near.index) == (2, 2, 6)
    assert (near.quoted, near.transcript) == ("\u2019", "'")
    described = near.describe()
    assert "transcript line 2" in described
    assert "U+2019 RIGHT SINGLE QUOTATION MARK" in described and "U+0027 APOSTROPHE" in described


def test_a_changed_number_across_a_line_break_names_both_lines() -> None:
    near = near_miss(NormalizedText(TRANSCRIPT), "because the 43 reasons are many")
    assert near is not None
    assert (near.line_start, near.line_end) == (2, 3)
    assert (near.quoted, near.transcript) == ("3", "2")


def test_a_difference_at_the_start_is_found_from_the_end() -> None:
    near = near_miss(NormalizedText(TRANSCRIPT), "Xe don't stop here now because")
    assert near is not None
    assert (near.index, near.quoted, near.transcript) == (0, "X", "w")


def test_nothing_close_and_an_exact_quote_have_no_near_miss() -> None:
    text = NormalizedText(TRANSCRIPT)
    assert near_miss(text, "completely unrelated words entirely") is None
    assert near_miss(text, "we don't stop here") is None  # it occurs: no miss to explain
