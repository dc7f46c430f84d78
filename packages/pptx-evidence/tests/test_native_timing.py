"""Five raw timing lanes: exact element names, mc branches both counted."""

from __future__ import annotations

from typing import Any

from pptx.oxml import parse_xml
from rvault_pptx_evidence.ooxml import NS
from rvault_pptx_evidence.timing import native_timing_summary, slide_native_timing
from rvault_testkit.pptx_evidence.sample_decks import TimingSpec, timing_xml

P = NS["p"]
ZERO_LANES = {
    "animation_behavior_counts": {
        "general": 0, "color": 0, "effect": 0, "motion": 0, "rotation": 0, "scale": 0, "total": 0,
    },
    "media_timing_counts": {"audio": 0, "video": 0, "total": 0},
    "build_entry_counts": {"paragraph": 0, "diagram": 0, "ole_chart": 0, "graphic": 0, "total": 0},
}  # fmt: skip


def _slide(inner: str) -> Any:
    return parse_xml(f'<p:sld xmlns:p="{P}"><p:cSld><p:spTree/></p:cSld>{inner}</p:sld>')


def test_title_slide_counts_every_lane_and_both_branches(slide_of: Any) -> None:
    timing = slide_of(1)["native_timing"]
    assert timing["timing_element_present"] is True
    assert timing["timing_element_count"] == 1
    # mc:AlternateContent Choice + Fallback: both p:transition elements are stored.
    assert timing["transition_count"] == 2
    assert timing["set_action_count"] == 2
    assert timing["visibility_set_action_count"] == 1
    assert timing["animation_behavior_counts"] == {
        "general": 1, "color": 0, "effect": 4, "motion": 1, "rotation": 1, "scale": 1, "total": 8,
    }  # fmt: skip
    assert timing["media_timing_counts"] == {"audio": 1, "video": 0, "total": 1}
    assert timing["build_list_present"] is True and timing["build_list_count"] == 1
    assert timing["build_entry_counts"] == {
        "paragraph": 1, "diagram": 1, "ole_chart": 0, "graphic": 0, "total": 2,
    }  # fmt: skip
    assert (
        timing["has_animation_behaviors"],
        timing["has_media_timing"],
        timing["has_build_entries"],
    ) == (
        True,
        True,
        True,
    )
    assert timing["provenance"] == {
        "source": "pptx_package_xml",
        "measurement": "raw_ooxml_element_counts",
        "observed_playback": False,
        "part_name": "ppt/slides/slide1.xml",
    }


def test_transition_counted_without_timing_tree(slide_of: Any) -> None:
    timing = slide_of(6)["native_timing"]
    assert timing["timing_element_present"] is False and timing["timing_element_count"] == 0
    assert timing["transition_count"] == 1
    for lane, zero in ZERO_LANES.items():
        assert timing[lane] == zero
    assert timing["build_list_present"] is False


def test_movie_timing_is_media_not_motion(slide_of: Any) -> None:
    timing = slide_of(7)["native_timing"]
    assert timing["media_timing_counts"] == {"audio": 0, "video": 1, "total": 1}
    assert timing["animation_behavior_counts"]["total"] == 0


def test_summary_has_fixed_keys_and_sums(rich_doc: dict[str, Any]) -> None:
    summary = rich_doc["native_timing_summary"]
    assert summary["slides_with_timing_elements"] == 2
    assert summary["slides_with_transitions"] == 2
    assert summary["slides_with_animation_behaviors"] == 1
    assert summary["slides_with_media_timing"] == 2
    assert summary["slides_with_build_lists"] == 1
    assert summary["slides_with_build_entries"] == 1
    assert summary["transition_count"] == 3
    assert summary["timing_element_count"] == 2
    assert summary["media_timing_counts"] == {"audio": 1, "video": 1, "total": 2}
    assert summary["provenance"]["observed_playback"] is False
    assert "part_name" not in summary["provenance"]


def test_visibility_attribute_names_and_build_entries_outside_bldlst() -> None:
    spec = TimingSpec(
        behaviors=(),
        visibility_sets=0,
        other_sets=0,
        media=(),
        builds=("bldOleChart", "bldGraphic"),
    )
    xml = timing_xml(spec).replace(
        "<p:bldLst>",
        '<p:bldLst><p:bldP spid="9" grpId="0"/>',
    )
    # A bare "visibility" attribute counts; "style.visibilityX" does not.
    sets = (
        '<p:set><p:cBhvr><p:cTn id="90"/><p:tgtEl><p:spTgt spid="2"/></p:tgtEl><p:attrNameLst>'
        "<p:attrName>visibility</p:attrName></p:attrNameLst></p:cBhvr></p:set>"
        '<p:set><p:cBhvr><p:cTn id="91"/><p:tgtEl><p:spTgt spid="2"/></p:tgtEl><p:attrNameLst>'
        "<p:attrName>style.visibilityX</p:attrName></p:attrNameLst></p:cBhvr></p:set>"
    )
    xml = xml.replace(
        '<p:cTn id="3" fill="hold"><p:childTnLst>',
        f'<p:cTn id="3" fill="hold"><p:childTnLst>{sets}',
    )
    # A build-entry element outside p:bldLst is not a build entry.
    stray = (
        f'<p:extLst xmlns:p="{P}"><p:ext uri="x"><p:bldP spid="4" grpId="0"/></p:ext></p:extLst>'
    )
    record = slide_native_timing(_slide(xml + stray), "ppt/slides/slide3.xml")
    assert record["set_action_count"] == 2
    assert record["visibility_set_action_count"] == 1
    assert record["build_entry_counts"] == {
        "paragraph": 1,
        "diagram": 0,
        "ole_chart": 1,
        "graphic": 1,
        "total": 3,
    }
    assert record["transition_count"] == 0


def test_summary_of_no_slides_is_all_zero() -> None:
    summary = native_timing_summary([])
    for lane, zero in ZERO_LANES.items():
        assert summary[lane] == zero
    assert summary["slides_with_timing_elements"] == 0 and summary["build_list_count"] == 0
