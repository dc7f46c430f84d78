"""A talk's time axis: slide changes and cited moments, drawn as one static SVG strip.

Every time on it was recorded by an owner, never estimated here: slide
changes are the video manifest's ``retained_frames`` timestamps, a cited
moment is a timed citation's ``start_seconds`` or the start of its cited
transcript line by the timing receipt (:mod:`.transcript_times`). A moment
links to the public recording at that second (a YouTube ``t=`` link) when
the talk has one; otherwise it names the local recording and the time.

The SVG is built with ``xml.etree`` (every label escaped), has no script
and no ``style`` attribute (the site's Content-Security-Policy forbids
both), and the same moments always give the same bytes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from rvault_analysis_writer.talk_view import seconds as clock

WIDTH = 1000
HEIGHT = 86
LEFT, RIGHT = 12, 12
AXIS_Y = 56
TICK_STEPS = (30, 60, 120, 300, 600, 900, 1800, 3600)
MAX_TICKS = 12
PATTERN_COLOR = "#1f5f99"
ANTI_COLOR = "#b5482e"
SLIDE_COLOR = "#8a94a3"


@dataclass(frozen=True)
class Moment:
    seconds: float
    kind: str
    """``pattern`` or ``antipattern``."""
    name: str
    anchor: str
    """The id of the finding on the talk page."""
    href: str | None
    """The recording at this second (``t=``), when the talk has a public video."""
    where: str
    """The time, and the recording it is a time of."""


@dataclass(frozen=True)
class Timeline:
    duration: float
    slide_changes: tuple[float, ...]
    moments: tuple[Moment, ...]
    recording: str
    """What the times are times of (:func:`recording`)."""
    svg: Markup


def public_link(video_id: str | None, at: float) -> str | None:
    """The YouTube watch URL at ``at`` seconds (whole seconds: what ``t=`` accepts)."""
    if video_id is None:
        return None
    return f"https://www.youtube.com/watch?v={video_id}&t={int(at)}s"


def recording(video_id: str | None, local: str | None) -> str:
    """Which recording the talk's times refer to, in words (a vault-relative path)."""
    if video_id is not None:
        return f"the recording on YouTube ({video_id})"
    if local is not None:
        return f"the local recording {local}"
    return "the talk's recording (none is linked to this talk)"


def where(at: float, video_id: str | None, local: str | None) -> str:
    return f"{clock(at)} in {recording(video_id, local)}"


def _x(at: float, duration: float) -> float:
    return round(LEFT + (WIDTH - LEFT - RIGHT) * min(max(at / duration, 0.0), 1.0), 1)


def _ticks(duration: float) -> list[int]:
    step = next((s for s in TICK_STEPS if duration / s <= MAX_TICKS), TICK_STEPS[-1])
    return list(range(0, int(duration) + 1, step))


def _axis(svg: ET.Element, duration: float) -> None:
    ET.SubElement(
        svg,
        "line",
        {"x1": str(LEFT), "x2": str(WIDTH - RIGHT), "y1": str(AXIS_Y), "y2": str(AXIS_Y),
         "stroke": "#5b6472", "stroke-width": "1"},
    )  # fmt: skip
    for tick in _ticks(duration):
        x = str(_x(tick, duration))
        ET.SubElement(svg, "line", {"x1": x, "x2": x, "y1": str(AXIS_Y), "y2": str(AXIS_Y + 5),
                                    "stroke": "#5b6472"})  # fmt: skip
        attributes = {"x": x, "y": str(AXIS_Y + 18), "font-size": "12",
                      "text-anchor": "middle", "fill": "#39414d"}  # fmt: skip
        label = ET.SubElement(svg, "text", attributes)
        label.text = clock(tick)


def _slides(svg: ET.Element, changes: Sequence[float], duration: float) -> None:
    group = ET.SubElement(svg, "g", {"stroke": SLIDE_COLOR, "stroke-width": "1"})
    ET.SubElement(group, "title").text = f"{len(changes)} slide changes"
    for at in changes:
        x = str(_x(at, duration))
        ET.SubElement(group, "line", {"x1": x, "x2": x, "y1": "8", "y2": str(AXIS_Y)})


def _marker(moment: Moment, duration: float) -> ET.Element:
    x = _x(moment.seconds, duration)
    label = f"{moment.kind} {moment.name} at {moment.where}"
    link = ET.Element("a", {"href": moment.href or f"#{moment.anchor}", "aria-label": label})
    ET.SubElement(link, "title").text = label
    if moment.kind == "antipattern":
        points = f"{x},{AXIS_Y - 30} {x - 8},{AXIS_Y - 14} {x + 8},{AXIS_Y - 14}"
        ET.SubElement(link, "polygon", {"points": points, "fill": ANTI_COLOR})
    else:
        ET.SubElement(link, "circle", {"cx": str(x), "cy": str(AXIS_Y - 22), "r": "7",
                                       "fill": PATTERN_COLOR})  # fmt: skip
    return link


def draw(duration: float, changes: Sequence[float], moments: Sequence[Moment]) -> Markup:
    """The strip as inline SVG markup (escaped by ElementTree, so safe to embed)."""
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {WIDTH} {HEIGHT}",
            "class": "timeline",
            "role": "group",
            "aria-label": f"talk timeline, {clock(duration)} long: {len(changes)} slide changes, "
            f"{len(moments)} cited moments",
        },
    )
    _axis(svg, duration)
    _slides(svg, changes, duration)
    for moment in moments:
        svg.append(_marker(moment, duration))
    return Markup(ET.tostring(svg, encoding="unicode"))


def build_timeline(
    moments: Sequence[Moment],
    changes: Sequence[float],
    known_duration: float | None,
    of: str,
) -> Timeline | None:
    """The strip, or ``None`` when nothing on this talk has a recorded time."""
    if not moments and not changes:
        return None
    latest = max([m.seconds for m in moments] + list(changes))
    duration = max(known_duration or 0.0, latest, 1.0)
    ordered = tuple(sorted(moments, key=lambda m: (m.seconds, m.kind, m.name)))
    return Timeline(duration, tuple(changes), ordered, of, draw(duration, changes, ordered))
