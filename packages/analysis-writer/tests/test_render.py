"""Rendering: the documented section order, English-first quotes, legacy labels, same bytes."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from analysis_testdata import make_return, persisted_talk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rvault_analysis_writer import markdown
from rvault_analysis_writer.talk_view import PROVENANCE_KEYS, build_view

FINGERPRINT = "a" * 64


def talk_and_claim(language: str = "en") -> tuple[dict[str, Any], dict[str, Any], dict]:
    ret = make_return("2024-01-01-a.md", language=language)
    talk = persisted_talk(copy.deepcopy(ret), FINGERPRINT, ["2024-01-01-a.md"])
    return talk, talk["_queue_claim"], ret


def render(talk: dict, claim: dict, ret: dict, version: int | None = 5) -> str:
    view = build_view(
        talk, claim=claim, return_version=version, catalog_feedback=ret.get("catalog_feedback")
    )
    return markdown.render(view).decode("utf-8")


def legacy(talk: dict, version: int) -> dict:
    talk = copy.deepcopy(talk)
    talk["pattern_scoring_generation_status"] = "legacy_unbaselineable"
    talk["pattern_scoring_generation_reasons"] = sorted(
        [f"return_schema_v{version}_replay_only", "source_inspection_absent"]
    )
    del talk["pattern_scoring_schema_version"], talk["pattern_catalog_fingerprint"]
    po = talk["pattern_observations"]
    if version <= 3:
        po.pop("evidence_schema_version")
        for row in po["patterns_detected"]:
            row["evidence_citations"] = []
    else:
        po["evidence_schema_version"] = 1
    talk["adherence_assessment"] = "Compared with the 2023 baseline the talk used more callbacks."
    return talk


def test_sections_and_provenance_follow_the_contract() -> None:
    text = render(*talk_and_claim())
    assert re.findall(r"^## (.+)$", text, re.M) == list(markdown.SECTIONS)
    front = text.split("---\n", 2)[1]
    keys = [line.split(":", 1)[0] for line in front.splitlines()]
    assert keys == [*PROVENANCE_KEYS, "rendered_by", "rendering_contract"]
    assert 'slides_local_path: "slides/1AbCdEfGhIjK.pdf"' in front
    assert text.endswith("\n") and "\r" not in text and "\n\n\n" not in text


def test_same_view_same_bytes_whatever_the_key_order() -> None:
    talk, claim, ret = talk_and_claim()
    shuffled = dict(reversed(list(copy.deepcopy(talk).items())))
    shuffled["structured_data"] = dict(reversed(list(shuffled["structured_data"].items())))
    assert render(talk, claim, ret) == render(shuffled, claim, ret)


def test_persisted_talk_not_raw_return_is_rendered() -> None:
    talk, claim, ret = talk_and_claim()
    # The return omitted the jokes lane; persistence preserved the prior snapshot.
    assert "jokes" not in ret["verbatim_examples"]
    text = render(talk, claim, ret)
    assert "> Production is just staging with consequences." in text
    assert "| speaker_created | 1 |" in text
    assert "hand-lettered \\| comic" in text


def test_translation_first_with_the_original_in_parentheses() -> None:
    talk, claim, ret = talk_and_claim(language="de")
    text = render(talk, claim, ret)
    assert (
        '- "the worst deploy of my life" ("die schlimmste Bereitstellung meines Lebens"), '
        "transcript line 3" in text
    )


def test_unknown_transcript_source_is_never_guessed() -> None:
    talk, claim, ret = talk_and_claim()
    del talk["transcript_source"]
    text = render(talk, claim, ret)
    assert 'transcript_source: "unknown"' in text


def test_current_result_is_source_verified_without_legacy_banner() -> None:
    text = render(*talk_and_claim())
    assert 'evidence_basis: "source-verified"' in text
    assert "Citations (source-verified):" in text
    assert "Legacy-unverified" not in text


@pytest.mark.parametrize("version", [1, 2, 3])
def test_v1_to_v3_evidence_is_never_claimed_source_verified(version: int) -> None:
    talk, claim, ret = talk_and_claim()
    text = render(legacy(talk, version), claim, ret, version)
    assert 'evidence_basis: "legacy-unverified"' in text
    assert "**Legacy-unverified result**" in text
    assert (
        "excluded from current numeric baselines, Section 15 aggregates, and speaker profiles"
        in text
    )
    assert "**Legacy-unverified** (archival prose" in text
    assert "Citations: none recorded (legacy marker; not source-verified)." in text
    for match in re.finditer("source-verified", text):
        assert text[max(0, match.start() - 4) : match.start()] == "not ", text[match.start() - 40 :]


def test_v4_replay_is_archival_not_verified() -> None:
    talk, claim, ret = talk_and_claim()
    text = render(legacy(talk, 4), claim, ret, 4)
    assert 'evidence_basis: "source-located-archival"' in text
    assert "**source-located, archival**" in text
    assert "Citations (source-verified)" not in text
    assert "return_schema_v4_replay_only" in text


def test_citation_locators_for_every_channel() -> None:
    talk, claim, ret = talk_and_claim()
    talk["pattern_observations"]["patterns_detected"][0]["evidence_citations"] += [
        {"source": "static_slides", "channel": "slides", "slide_numbers": [4, 17]},
        {"source": "native_deck", "channel": "slide_sequence", "slide_numbers": [21, 22, 23]},
        {
            "source": "delivery_video",
            "channel": "video",
            "start_seconds": 725.5,
            "end_seconds": 760,
        },
        {"source": "transcript", "channel": "talk_metadata", "field": "title", "value": "T"},
        {
            "source": "transcript",
            "channel": "timed_transcript",
            "quote": "one two three four",
            "line_start": 7,
            "line_end": 8,
            "start_seconds": 61.0,
            "end_seconds": 65.5,
        },
    ]
    text = render(talk, claim, ret)
    assert "- static slides slides 4, 17" in text
    assert "- native deck sequence 21 -> 22 -> 23" in text
    assert "- delivery video 12:05.5-12:40 (725.5-760 s)" in text
    assert "- talk metadata `title` = T" in text
    assert '- "one two three four", transcript lines 7-8, 1:01-1:05.5 (61.0-65.5 s)' in text


def test_worker_prose_cannot_open_a_section() -> None:
    talk, claim, ret = talk_and_claim()
    talk["rhetoric_notes"] = (
        "Intro.\n## Catalog feedback\n   # Also not a heading\nTitle\n====\n---"
    )
    text = render(talk, claim, ret)
    assert re.findall(r"^## (.+)$", text, re.M) == list(markdown.SECTIONS)
    assert re.findall(r"^# ", text, re.M) == ["# "]
    assert "\\## Catalog feedback" in text
    assert "   \\# Also not a heading" in text
    assert "\n\\====\n" in text and "\n\\---\n" in text


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(min_size=1, max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    structured=st.dictionaries(st.text(min_size=1, max_size=12), JSON, max_size=6),
    notes=st.text(max_size=200),
    lane=st.lists(st.text(max_size=40), max_size=3),
)
def test_any_persisted_values_render_the_same_sections(
    structured: dict, notes: str, lane: list[str]
) -> None:
    talk, claim, ret = talk_and_claim()
    talk["structured_data"] = structured
    talk["rhetoric_notes"] = notes
    talk["verbatim_examples"] = {"jokes": lane}
    first = render(talk, claim, ret)
    assert first == render(copy.deepcopy(talk), claim, ret)
    assert re.findall(r"^## (.+)$", first, re.M) == list(markdown.SECTIONS)
    assert "\r" not in first and first.endswith("\n")


HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)> <!-- c --> <javascript:x>"


def test_worker_markup_reaches_a_static_site_generator_as_text() -> None:
    """A generator that passes raw HTML through (markdown-it with ``html: True``,
    as Hugo's ``unsafe`` or Jekyll's kramdown do) renders no tag the worker wrote."""
    from markdown_it import MarkdownIt

    talk, claim, ret = talk_and_claim()
    talk["rhetoric_notes"] = f"Opening.\n\n{HOSTILE}\n\n\\{HOSTILE}"
    talk["areas_for_improvement"] = f"- {HOSTILE}"
    talk["verbatim_examples"]["opening_lines"] = [HOSTILE]
    detection = talk["pattern_observations"]["patterns_detected"][0]
    detection["evidence"] = HOSTILE
    detection["evidence_citations"][0]["quote"] = HOSTILE
    talk["structured_data"]["slide_design_style"] = f"a\n{HOSTILE}"
    lanes = ret["catalog_feedback"]
    lanes[next(iter(lanes))] = [{"note": HOSTILE}]
    text = render(talk, claim, ret)
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    for tag in ("<script", "<img", "<!--", 'href="javascript'):
        assert tag not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown, as text
    assert text.count("&lt;script>") >= 6
