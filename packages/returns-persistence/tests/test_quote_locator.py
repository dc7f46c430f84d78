"""Locating a quote: exactly once in whitespace-normalized text, with lines and seconds."""

from __future__ import annotations

from rvault_returns_persistence.quote_locator import NormalizedText, segment_span

TEXT = "first line of the talk\n  second\tline   of the talk\n\nthird line closes it\n"


def test_a_quote_across_a_line_break_gets_both_lines() -> None:
    match, count = NormalizedText(TEXT).find_once("of the talk second line")
    assert count == 1 and match is not None
    assert (match.line_start, match.line_end) == (1, 2)


def test_whitespace_layout_never_matters_but_words_do() -> None:
    text = NormalizedText(TEXT)
    assert text.find_once("second   line\nof")[1] == 1
    assert text.find_once("secondline of")[1] == 0
    assert text.find_once("third line closes it")[0].line_start == 4  # blank line 3 is counted


def test_two_occurrences_are_ambiguous_even_when_they_overlap() -> None:
    assert NormalizedText("a a a a\n").find_once("a a a") == (None, 2)
    assert NormalizedText(TEXT).find_once("of the talk") == (None, 2)


def test_segment_span_covers_the_quote_and_needs_aligned_segments() -> None:
    text = NormalizedText(TEXT)
    segments = [
        ("first line of the talk", 0.0, 2.0),
        ("second line of the talk", 2.5, 4.0),
        ("third line closes it", 4.5, 6.0),
    ]
    match, _ = text.find_once("the talk second")
    assert segment_span(segments, match, text) == (0.0, 4.0)
    misaligned = [("first line of a talk", 0.0, 2.0), *segments[1:]]
    assert segment_span(misaligned, match, text) is None
