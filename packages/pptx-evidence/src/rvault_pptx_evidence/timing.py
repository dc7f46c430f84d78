"""Native timing: five raw OOXML lanes per slide, never observed playback.

Counts are exact PresentationML element names in the slide part. Markup
compatibility ``Choice`` and ``Fallback`` branches are both stored in the
package, so both are counted: the count is structure, not what a given
presenter application ran. Transitions are counted wherever they sit in the
slide, with or without a ``<p:timing>`` tree.
"""

from __future__ import annotations

from typing import Any

from rvault_pptx_evidence.ooxml import qn

BEHAVIOR_KEYS = ("general", "color", "effect", "motion", "rotation", "scale")
BEHAVIOR_TAGS = {
    qn("p:anim"): "general",
    qn("p:animClr"): "color",
    qn("p:animEffect"): "effect",
    qn("p:animMotion"): "motion",
    qn("p:animRot"): "rotation",
    qn("p:animScale"): "scale",
}
MEDIA_KEYS = ("audio", "video")
MEDIA_TAGS = {qn("p:audio"): "audio", qn("p:video"): "video"}
BUILD_KEYS = ("paragraph", "diagram", "ole_chart", "graphic")
BUILD_TAGS = {
    qn("p:bldP"): "paragraph",
    qn("p:bldDgm"): "diagram",
    qn("p:bldOleChart"): "ole_chart",
    qn("p:bldGraphic"): "graphic",
}
TAG_TIMING = qn("p:timing")
TAG_TRANSITION = qn("p:transition")
TAG_SET = qn("p:set")
TAG_BLDLST = qn("p:bldLst")
TAG_ATTRNAME = qn("p:attrName")
# The three count lanes of a record, each with its fixed keys (plus ``total``).
COUNT_LANES = {
    "animation_behavior_counts": BEHAVIOR_KEYS,
    "media_timing_counts": MEDIA_KEYS,
    "build_entry_counts": BUILD_KEYS,
}

PROVENANCE_BASE = {
    "source": "pptx_package_xml",
    "measurement": "raw_ooxml_element_counts",
    "observed_playback": False,
}


def _zero(keys: tuple[str, ...]) -> dict[str, int]:
    counts = dict.fromkeys(keys, 0)
    counts["total"] = 0
    return counts


def _is_visibility_set(set_element: Any) -> bool:
    for attr in set_element.iter(TAG_ATTRNAME):
        name = (attr.text or "").strip()
        if name == "visibility" or name.endswith(".visibility"):
            return True
    return False


def slide_native_timing(slide_element: Any, part_name: str) -> dict[str, Any]:
    """The per-slide ``native_timing`` record from the slide's root element."""
    timing_roots = list(slide_element.iter(TAG_TIMING))
    behaviors = _zero(BEHAVIOR_KEYS)
    media = _zero(MEDIA_KEYS)
    builds = _zero(BUILD_KEYS)
    set_count = 0
    visibility_count = 0
    build_list_count = 0
    for root in timing_roots:
        for element in root.iter():
            tag = element.tag
            if tag in BEHAVIOR_TAGS:
                behaviors[BEHAVIOR_TAGS[tag]] += 1
            elif tag == TAG_SET:
                set_count += 1
                if _is_visibility_set(element):
                    visibility_count += 1
            elif tag in MEDIA_TAGS:
                media[MEDIA_TAGS[tag]] += 1
            elif tag == TAG_BLDLST:
                build_list_count += 1
                for entry in element.iter():
                    if entry.tag in BUILD_TAGS:
                        builds[BUILD_TAGS[entry.tag]] += 1
    behaviors["total"] = sum(behaviors[key] for key in BEHAVIOR_KEYS)
    media["total"] = sum(media[key] for key in MEDIA_KEYS)
    builds["total"] = sum(builds[key] for key in BUILD_KEYS)
    transition_count = sum(1 for _ in slide_element.iter(TAG_TRANSITION))
    return {
        "timing_element_present": bool(timing_roots),
        "timing_element_count": len(timing_roots),
        "transition_count": transition_count,
        "set_action_count": set_count,
        "visibility_set_action_count": visibility_count,
        "animation_behavior_counts": behaviors,
        "media_timing_counts": media,
        "build_list_present": build_list_count > 0,
        "build_list_count": build_list_count,
        "build_entry_counts": builds,
        "has_animation_behaviors": behaviors["total"] > 0,
        "has_media_timing": media["total"] > 0,
        "has_build_entries": builds["total"] > 0,
        "provenance": dict(PROVENANCE_BASE, part_name=part_name),
    }


def native_timing_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The deck-level fixed-key summary of every slide's five lanes."""
    lanes = {lane: _zero(keys) for lane, keys in COUNT_LANES.items()}
    for record in records:
        for lane, counts in lanes.items():
            for key in counts:
                counts[key] += record[lane][key]
    return {
        "slides_with_timing_elements": sum(1 for r in records if r["timing_element_present"]),
        "slides_with_transitions": sum(1 for r in records if r["transition_count"] > 0),
        "slides_with_animation_behaviors": sum(1 for r in records if r["has_animation_behaviors"]),
        "slides_with_media_timing": sum(1 for r in records if r["has_media_timing"]),
        "slides_with_build_lists": sum(1 for r in records if r["build_list_present"]),
        "slides_with_build_entries": sum(1 for r in records if r["has_build_entries"]),
        "timing_element_count": sum(r["timing_element_count"] for r in records),
        "transition_count": sum(r["transition_count"] for r in records),
        "set_action_count": sum(r["set_action_count"] for r in records),
        "visibility_set_action_count": sum(r["visibility_set_action_count"] for r in records),
        "build_list_count": sum(r["build_list_count"] for r in records),
        **lanes,
        "provenance": dict(PROVENANCE_BASE),
    }
