"""The site's small pure parts: line times from a timing receipt, path scrubbing, moments."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rvault_analysis_writer.site.paths import OUTSIDE, Scrubber
from rvault_analysis_writer.site.timeline import Moment, build_timeline, public_link, where
from rvault_analysis_writer.site.transcript_times import line_starts


@dataclass(frozen=True)
class Segment:
    text: str
    start_seconds: float


def test_a_line_starts_when_the_segment_of_its_first_word_starts() -> None:
    text = "one two three\nfour five\n\nsix seven eight nine\nten"
    segments = [
        Segment("one two", 0.0),
        Segment("three four", 1.5),  # line 2 starts inside this segment
        Segment("  ", 2.0),  # a segment without words changes nothing
        Segment("five six seven", 3.0),
        Segment("eight nine ten", 4.5),
    ]
    assert line_starts(text, segments) == (0.0, 1.5, None, 3.0, 4.5)


def test_lines_past_the_timed_words_have_no_time() -> None:
    assert line_starts("a b\nc", [Segment("a b", 7.0)]) == (7.0, None)


def test_absolute_paths_become_vault_relative_or_hidden(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    link = tmp_path / "link"
    link.symlink_to(vault, target_is_directory=True)
    scrub = Scrubber(link)  # both the given and the resolved root are recognised
    assert scrub.text(f"{vault}/slides/a.pdf") == "slides/a.pdf"
    assert scrub.text(f"at {link}/media/talk.mp4, then") == "at media/talk.mp4, then"
    assert scrub.text("copied from /home/me/talk.mp4.") == f"copied from {OUTSIDE}"
    assert scrub.text(r"C:\Users\me\talk.mp4") == OUTSIDE
    keep = "https://youtu.be/x/y and/or 1/2, <b>bold</b> a / b"
    assert scrub.text(keep) == keep


def test_scrubber_reaches_every_string_of_a_frozen_view(tmp_path: Path) -> None:
    @dataclass(frozen=True)
    class View:
        title: str
        rows: tuple[tuple[str, str], ...]

    view = View(f"{tmp_path}/x", (("path", "/etc/passwd"), ("n", "3")))
    assert Scrubber(tmp_path).any(view) == View("x", (("path", OUTSIDE), ("n", "3")))


def test_moments_link_to_the_recording_or_name_it() -> None:
    assert public_link("dQw4w9WgXcQ", 75.9) == "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=75s"
    assert public_link(None, 75.9) is None
    assert where(75.5, None, "media/talk.mp4") == "1:15.5 in the local recording media/talk.mp4"
    moment = Moment(75.5, "pattern", "Bookends", "finding-bookends", None, "1:15.5 in ...")
    timeline = build_timeline([moment], [10.0, 20.0], None, "the local recording media/t.mp4")
    assert timeline is not None and timeline.duration == 75.5
    assert 'href="#finding-bookends"' in timeline.svg
    assert build_timeline([], [], 100.0, "x") is None


def test_a_quote_is_placed_at_its_first_word_inside_a_long_line() -> None:
    from rvault_analysis_writer.site.transcript_times import quote_start, token_starts

    lines = ["intro words here", "one long whisper line says the key phrase here and more", "end"]
    segments = [
        Segment("intro words", 0.0),
        Segment("here one long", 2.0),
        Segment("whisper line says", 4.0),
        Segment("the key phrase", 6.5),
        Segment("here and more end", 9.0),
    ]
    starts = token_starts(segments)
    assert len(starts) == 15
    assert quote_start(lines, starts, "the  key\nphrase", 2) == 6.5
    assert quote_start(lines, starts, "here", 2) == 9.0  # from the cited line on
    assert quote_start(lines, starts, "here", None) == 2.0
    assert quote_start(lines, starts, "not said", 2) is None


def test_thumbnails_keep_each_page_text_layer(tmp_path: Path) -> None:
    from rvault_analysis_writer.site.thumbnails import render_thumbnails
    from site_vault import make_text_pdf

    make_text_pdf(tmp_path / "deck.pdf", ["Zeppelin budgeting", "a (quoted) aside"])
    thumbs = render_thumbnails((tmp_path / "deck.pdf").read_bytes())
    assert thumbs.page_count == 2 and len(thumbs.pages) == 2
    assert thumbs.texts == ("Zeppelin budgeting", "a (quoted) aside")
