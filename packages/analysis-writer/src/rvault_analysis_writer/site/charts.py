"""Trend charts as SVG, drawn by leather (no hand-written chart code).

Why leather: it is pure Python with no dependencies (the site's charts used
to pull matplotlib and numpy, most of a fresh install's size), it writes
plain static SVG (no script, no external reference, no generated ids) from
``xml.etree``, so the same data always gives the same bytes. Its look lives
in module-level settings (:mod:`leather.theme`); :func:`_theme` sets ours
only while drawing and puts the previous values back.

A chart here is one or more leather panels stacked vertically in one SVG
document, each drawn by leather's documented ``Chart.to_svg_group``. Score
trends plot only talks scored under the current catalog; legacy and
other-catalog results are drawn in their own, labelled panel and never
joined to the current line.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rvault_analysis_writer.site.overview import TalkRow

TOP_N = 12
MIN_SPAN_DAYS = 730
WIDTH = 557
CURRENT_COLOR = "#2b6cb0"
LEGACY_COLOR = "#9a9a9a"
ANTI_COLOR = "#c0392b"
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
SVG_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n'

# Sizes leather uses both to draw and to estimate label room (chars x width).
THEME: dict[str, Any] = {
    "background_color": "#ffffff",
    "margin": 0.05,
    "title_font_family": FONT,
    "title_font_size": 13,
    "title_font_char_height": 13,
    "title_font_char_width": 7.5,
    "title_color": "#222222",
    "legend_font_family": FONT,
    "legend_font_size": 11,
    "legend_font_char_height": 11,
    "legend_font_char_width": 6.7,
    "legend_color": "#555555",
    "axis_title_font_family": FONT,
    "axis_title_font_size": 11,
    "axis_title_font_char_height": 11,
    "axis_title_color": "#555555",
    "tick_font_family": FONT,
    "tick_font_size": 11,
    "tick_font_char_height": 11,
    "tick_font_char_width": 6.7,
    "tick_color": "#dddddd",
    "zero_color": "#999999",
    "label_color": "#333333",
    "default_dot_radius": 3.5,
    "default_line_width": 1.6,
}


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    alt: str
    svg: bytes
    width: int = WIDTH


@contextmanager
def _theme() -> Iterator[None]:
    from leather import theme

    saved = {key: getattr(theme, key) for key in THEME}
    for key, value in THEME.items():
        setattr(theme, key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            setattr(theme, key, value)


def _stack(panels: Sequence[tuple[Any, int]]) -> bytes:
    """One SVG document holding leather panels (chart, height) top to bottom."""
    height = sum(h for _, h in panels)
    root = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "version": "1.1",
            "width": str(WIDTH),
            "height": str(height),
            "viewBox": f"0 0 {WIDTH} {height}",
        },
    )
    top = 0
    with _theme():
        for chart, panel_height in panels:
            group = chart.to_svg_group(WIDTH, panel_height)
            group.set("transform", f"translate(0 {top})")
            root.append(group)
            top += panel_height
    return (SVG_HEADER + ET.tostring(root, encoding="unicode") + "\n").encode("utf-8")


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def _whole_ticks(scale: Any) -> list[Any]:
    """leather's own ticks for ``scale`` without the fractional ones (scores and counts
    are whole numbers, so a tick at 2.5 would label a value nothing can have)."""
    return [tick for tick in scale.ticks() if tick == int(tick)]


def _empty(title: str, message: str) -> Any:
    """A panel that says plainly that there is nothing to plot.

    leather draws nothing without a series, so the panel holds one zero-length
    bar labelled ``none`` under a title that carries the message.
    """
    import leather

    chart = leather.Chart(f"{title}: {message}")
    chart.add_bars([(0, "none")], fill_color=LEGACY_COLOR)
    chart.add_x_scale(0, 1)
    chart.add_x_axis(tick_formatter=lambda value, index, count: "")  # no count to read
    return chart


def _score_panel(
    title: str, points: list[tuple[dt.date, int]], span: tuple[dt.date, dt.date], line: bool
) -> Any:
    import leather

    scores = [score for _, score in points]
    low, high = min(0, *scores), max(0, *scores)
    chart = leather.Chart(title)
    if line:
        chart.add_line(points, stroke_color=CURRENT_COLOR, name="trend")
        chart.add_dots(points, fill_color=CURRENT_COLOR, name="one talk's score")
    else:
        chart.add_dots(points, fill_color=LEGACY_COLOR)
    chart.add_x_scale(*span)
    scale = leather.Linear(low - 0.5, high + 0.5)
    chart.set_y_scale(scale)
    chart.add_y_axis(ticks=_whole_ticks(scale), name="pattern score")
    return chart


def _span(dates: list[dt.date]) -> tuple[dt.date, dt.date]:
    """At least two years around the talks, so a lone talk is not stretched across."""
    if not dates:
        return dt.date(2000, 1, 1), dt.date(2001, 1, 1)
    first, last = min(dates), max(dates)
    if (last - first).days >= MIN_SPAN_DAYS:
        return first, last
    middle = first + (last - first) / 2
    half = dt.timedelta(days=MIN_SPAN_DAYS // 2)
    return middle - half, middle + half


def score_trend(rows: Sequence[TalkRow], catalog_fingerprint: str) -> Chart:
    current, other = [], []
    for row in rows:
        when = _date(row.date)
        if not row.analysed or row.score is None or when is None:
            continue
        same = row.current and row.fingerprint == catalog_fingerprint
        (current if same else other).append((when, row.score))
    current.sort()
    other.sort()
    span = _span([when for when, _ in current + other])
    top_title = f"Pattern score, current generation (catalog {catalog_fingerprint[:12]})"
    legacy_title = "Legacy / other-catalog results: not comparable"
    panels = [
        (
            _score_panel(top_title, current, span, line=True)
            if current
            else _empty("Pattern score, current generation", "no talks scored yet")
        ),
        (
            _score_panel(legacy_title + ", excluded from baselines", other, span, line=False)
            if other
            else _empty(legacy_title, "no legacy results")
        ),
    ]
    alt = f"{len(current)} current-generation scores over time; {len(other)} legacy shown apart"
    svg = _stack([(panels[0], 250), (panels[1], 180)])
    return Chart("chart-score-trend.svg", "Pattern score over time", alt, svg)


def _bars(title: str, counter: Counter[str], color: str) -> tuple[Any, int]:
    import leather

    top = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:TOP_N]
    if not top:
        return _empty(title, "none detected"), 110
    chart = leather.Chart(title)
    chart.add_bars([(count, name) for name, count in top], fill_color=color)
    scale = leather.Linear(0, top[0][1])
    chart.set_x_scale(scale)
    chart.add_x_axis(ticks=_whole_ticks(scale), name="current-generation talks")
    return chart, 130 + 24 * len(top)


def frequency(rows: Sequence[TalkRow], catalog_fingerprint: str) -> Chart:
    patterns: Counter[str] = Counter()
    antipatterns: Counter[str] = Counter()
    for row in rows:
        if not (row.current and row.fingerprint == catalog_fingerprint):
            continue
        observations = row.talk.get("pattern_observations")
        if not isinstance(observations, dict):
            continue
        for key, counter in (("pattern_ids", patterns), ("antipattern_ids", antipatterns)):
            ids = observations.get(key)
            if isinstance(ids, list):
                counter.update(i for i in ids if isinstance(i, str))
    svg = _stack(
        [
            _bars("Patterns", patterns, CURRENT_COLOR),
            _bars("Antipatterns", antipatterns, ANTI_COLOR),
        ]
    )
    alt = f"{len(patterns)} distinct patterns and {len(antipatterns)} antipatterns detected"
    return Chart("chart-frequency.svg", "Most frequent patterns and antipatterns", alt, svg)


def coverage(rows: Sequence[TalkRow]) -> Chart:
    import leather

    lanes = list(rows[0].evidence.sources) if rows else []
    counts = [sum(row.evidence.sources[lane] for row in rows) for lane in lanes]
    title = "Evidence coverage per source"
    if lanes:
        chart = leather.Chart(title)
        chart.add_bars(list(zip(counts, lanes, strict=True)), fill_color=CURRENT_COLOR)
        scale = leather.Linear(0, max(len(rows), 1))
        chart.set_x_scale(scale)
        chart.add_x_axis(
            ticks=_whole_ticks(scale), name=f"talks with the evidence (of {len(rows)})"
        )
        panel = (chart, 120 + 24 * len(lanes))
    else:
        panel = (_empty(title, "no talks yet"), 110)
    alt = ", ".join(f"{lane}: {count}" for lane, count in zip(lanes, counts, strict=True))
    return Chart("chart-coverage.svg", title, alt, _stack([panel]))


def all_charts(rows: Sequence[TalkRow], catalog_fingerprint: str) -> list[Chart]:
    return [
        score_trend(rows, catalog_fingerprint),
        frequency(rows, catalog_fingerprint),
        coverage(rows),
    ]
