"""Shownotes page parsing: frontmatter formats, body H1, labeled lines, title agreement."""

from __future__ import annotations

import pytest
from rvault_tracking_db.shownotes.frontmatter import parse
from rvault_tracking_db.shownotes.metadata import body_title, extract
from rvault_tracking_db.shownotes.titles import shownotes_titles_agree


def test_yaml_toml_and_json_frontmatter() -> None:
    yaml_page = parse("---\ntitle: A\ndate: 2024-04-10\ntags: [x]\n---\nbody\n")
    assert (yaml_page.format, yaml_page.data, yaml_page.body) == (
        "yaml",
        {"title": "A", "date": "2024-04-10", "tags": ["x"]},
        "body\n",
    )
    toml_page = parse('+++\ntitle = "B"\ndate = 2024-05-01\n+++\nbody')
    assert (toml_page.format, toml_page.data) == ("toml", {"title": "B", "date": "2024-05-01"})
    json_page = parse('{"title": "C", "event": "X"}\n# Heading\n')
    assert (json_page.format, json_page.data, json_page.body) == (
        "json",
        {"title": "C", "event": "X"},
        "\n# Heading\n",
    )
    eleventy = parse('---json\n{"title": "D"}\n---\nbody')
    assert (eleventy.format, eleventy.data) == ("json", {"title": "D"})
    assert parse("\ufeff---\ntitle: E\n---\n").data == {"title": "E"}
    assert parse("# No frontmatter\n").format is None


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: [unclosed\n---\n",
        "---\n- a list\n---\n",
        "---\ntitle: never closed\n",
        "+++\ntitle = \n+++\n",
        '{"title": "a", "title": "b"}\nbody',
        '{"title": NaN}\n',
    ],
)
def test_malformed_frontmatter_is_reported_not_guessed(text: str) -> None:
    parsed = parse(text)
    assert parsed.error is not None
    assert parsed.data == {}


def test_body_h1_atx_setext_and_code_fences() -> None:
    assert body_title("intro\n# The *Title* #\n# Second\n") == "The Title"
    assert body_title("The Setext Title\n===\n") == "The Setext Title"
    assert body_title("```\n# not a heading\n```\n## h2 only\n") is None


def test_labeled_lines_in_many_spellings() -> None:
    body = "\n".join(
        [
            "**Conference:** DevConf 2024",
            "- Date: April 10, 2024",
            "* **Video:** [watch](https://www.youtube.com/watch?v=dQw4w9WgXcQ)",
            "Slides: <https://drive.google.com/file/d/1AbCdEfGhIjK/view>",
            "```",
            "Deck: https://example.com/ignored-in-code",
            "```",
        ]
    )
    proposal = extract({"title": "T"}, body, "talk.md")
    assert proposal.issues == []
    assert proposal.fields == {
        "title": "T",
        "conference": "DevConf 2024",
        "date": "2024-04-10",
        "video_url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        "youtube_id": "dQw4w9WgXcQ",
        "slides_url": "https://drive.google.com/file/d/1AbCdEfGhIjK/view",
        "google_drive_id": "1AbCdEfGhIjK",
    }


def test_event_venue_recording_deck_and_filename_date() -> None:
    body = (
        "# Heading Title\nEvent: [JFokus](https://jfokus.se)\n"
        "Recording: https://youtu.be/abcdefghijk\nDeck: https://speakerdeck.com/x/y\n"
    )
    proposal = extract({}, body, "2024-02-05-slug.md")
    assert proposal.fields["title"] == "Heading Title"
    assert proposal.fields["conference"] == "JFokus"
    assert proposal.fields["date"] == "2024-02-05"
    assert proposal.fields["youtube_id"] == "abcdefghijk"
    assert proposal.fields["slides_url"] == "https://speakerdeck.com/x/y"
    assert "google_drive_id" not in proposal.fields


def test_disagreeing_sources_are_conflicts_not_choices() -> None:
    proposal = extract(
        {"video": "https://youtu.be/aaaaaaaaaaa"},
        "Video: https://youtu.be/bbbbbbbbbbb\nDate: 2024-01-01\nDate: 2024-01-02\n",
        "x.md",
    )
    codes = {(i["code"], i["field"]) for i in proposal.issues}
    assert codes == {("conflicting_metadata", "video_url"), ("conflicting_metadata", "date")}
    assert "video_url" not in proposal.fields and "date" not in proposal.fields
    unusable = extract({"date": "someday", "video": 42}, "", "x.md")
    assert {i["field"] for i in unusable.issues} == {"date", "video_url"}


@pytest.mark.parametrize(
    ("stored", "proposed", "conference", "date", "agree"),
    [
        ("Talk Title", "Talk Title", None, None, True),
        ("Talk Title", "talk title!", None, None, True),
        ("Talk Title", "Talk Title (DevConf 2024)", "DevConf", "2024-04-10", True),
        ("DevConf 2024: Talk Title", "Talk Title", "DevConf", "2024-04-10", True),
        ("Ｔａｌｋ Title", "talk title", None, None, True),
        ("Talk Title", "Talk Title Part 2", "DevConf", "2024-04-10", False),
        ("Talk Title", "Another Talk", None, None, False),
        ("Talk Title (DevConf 2024)", "Talk Title", None, None, False),
        ("DevConf", "DevConf 2024", "DevConf", "2024-04-10", False),
        ("", "Talk", None, None, False),
        (None, "Talk", None, None, False),
    ],
)
def test_title_agreement_is_a_closed_boolean(stored, proposed, conference, date, agree) -> None:
    result = shownotes_titles_agree(stored, proposed, conference, date)
    assert result is agree


@pytest.mark.parametrize(
    "text",
    [
        "---\ndate: 2024-03-06 23:30:00 -05:00\n---\n",  # YAML timestamp -> datetime
        "---\ndate: 2024-03-06T01:30:00+02:00\n---\n",
        "---\ndate: 2024-03-06 10:00:00\n---\n",
        "---\ndate: 2024-03-06 10:00:00 -0500\n---\n",  # Jekyll's own spelling (a string)
        "+++\ndate = 2024-03-06T07:32:00-08:00\n+++\n",  # TOML offset datetime
    ],
)
def test_frontmatter_datetimes_give_the_written_date(text: str) -> None:
    """A timestamp used to be ``unusable_metadata`` (the ``\\b`` after the day failed at 'T')."""
    page = parse(text)
    proposal = extract(page.data, page.body, "talk.md")
    assert proposal.issues == []
    assert proposal.fields["date"] == "2024-03-06"


@pytest.mark.parametrize(
    "text",
    [
        "---\nscore: .nan\n---\n",
        "---\nscore: -.inf\n---\n",
        "---\nblob: !!binary aGVsbG8=\n---\n",
        "---\ntags: !!set {a, b}\n---\n",
        "+++\nscore = nan\n+++\n",
        "+++\nscore = inf\n+++\n",
    ],
)
def test_frontmatter_without_a_json_form_is_malformed_not_passed_on(text: str) -> None:
    # Found by reliability/test_fuzz_decoders.py: these values reached the scanner
    # (and the database encoder, which refuses them) as NaN, bytes or a set.
    parsed = parse(text)
    assert parsed.data == {}
    assert parsed.error is not None and "not a JSON value" in parsed.error
