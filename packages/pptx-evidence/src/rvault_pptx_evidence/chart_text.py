"""The words a chart part stores: its title, axis titles, series names, categories.

A chart's visible words live in its own part (``ppt/charts/chartN.xml``), not
in any text frame, so without this a chart-only slide gives a reader nothing.
They are read through python-pptx's chart API and kept in their own channel,
``chart_label_text``, one entry per role (``provenance.source`` names it:
title, axis titles, series names, category labels), at ``medium`` confidence:
they are the labels as stored, not as rendered (an automatic title, number
formats, data labels and values are not read). The chart itself stays
unsupported and render-required; this channel is inventory, not the picture.

Only properties that python-pptx reads without authoring are touched
(``has_title`` before ``chart_title``/``axis_title``, which would otherwise
add an empty title element). A chart python-pptx cannot model (``chartex``,
an unknown plot type, a broken relationship) gives no label channel; the
``chart_text`` ``requires_render`` marker is still emitted by the walker.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rvault_pptx_evidence.ooxml import qn

CHANNEL = "chart_label_text"
MAX_CATEGORY_LABELS = 200
MAX_CHANNEL_CHARS = 4000
_CHART_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
# What python-pptx raises on a chart it cannot model.
_UNREADABLE = (KeyError, ValueError, NotImplementedError, AttributeError, IndexError, TypeError)


def _title_text(owner: Any, title_attribute: str) -> str:
    """The text of a chart or axis title, without authoring one."""
    if not owner.has_title:
        return ""
    title = getattr(owner, title_attribute)
    return title.text_frame.text.strip() if title.has_text_frame else ""


def _axes(chart: Any) -> Iterator[Any]:
    for attribute in ("category_axis", "value_axis"):
        try:
            yield getattr(chart, attribute)
        except ValueError:  # a pie or doughnut chart has no axes
            continue


def _unique(values: Iterator[str]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        text = value.strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def chart_roles(chart: Any) -> list[tuple[str, list[str]]]:
    """``(provenance source, labels)`` for every role that carries words."""
    plots = list(chart.plots)
    categories: list[str] = []
    if plots:
        labels = (str(label) for label in plots[0].categories)
        categories = _unique(labels)[:MAX_CATEGORY_LABELS]
    roles = [
        ("pptx_chart_title", _unique(iter([_title_text(chart, "chart_title")]))),
        ("pptx_chart_axis_title", _unique(_title_text(a, "axis_title") for a in _axes(chart))),
        ("pptx_chart_series_name", _unique(s.name or "" for p in plots for s in p.series)),
        ("pptx_chart_category_label", categories),
    ]
    return [(source, labels) for source, labels in roles if labels]


def chart_label_channels(slide_part: Any, graphic_data: Any, path: list[str]) -> list[dict]:
    """The ``chart_label_text`` channels of one chart graphic frame (may be empty)."""
    reference = graphic_data.find(f"{{{_CHART_NS}}}chart")
    r_id = reference.get(qn("r:id")) if reference is not None else None
    if not r_id:
        return []
    try:
        roles = chart_roles(slide_part.related_part(r_id).chart)
    except _UNREADABLE:
        return []
    return [
        {
            "channel": CHANNEL,
            "text": "\n".join(labels)[:MAX_CHANNEL_CHARS],
            "confidence": "medium",
            "status": "extracted",
            "provenance": {"source": source, "shape_path": path},
        }
        for source, labels in roles
    ]
