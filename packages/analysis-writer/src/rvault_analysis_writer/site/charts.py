"""Trend charts as SVG, drawn by matplotlib (no hand-written chart code).

Determinism: the object-oriented API (no pyplot global state), the SVG
backend with a fixed ``svg.hashsalt`` (stable element ids), text kept as
text (``svg.fonttype: none``) and no ``Date``/``Creator`` metadata, so the
same data always gives the same bytes. Score trends plot only talks scored
under the current catalog; legacy and other-catalog results are drawn in
their own, labelled panel and never joined to the current line.
"""

from __future__ import annotations

import datetime as dt
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rvault_analysis_writer.site.overview import TalkRow

HASH_SALT = "rvault-analysis-site"
TOP_N = 12
MIN_SPAN_DAYS = 730
WIDTH_IN = 5.8
DPI = 96
CURRENT_COLOR = "#2b6cb0"
LEGACY_COLOR = "#9a9a9a"
ANTI_COLOR = "#c0392b"


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    alt: str
    svg: bytes
    width: int = round(WIDTH_IN * DPI)


def _svg(figure: object) -> bytes:
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": HASH_SALT, "svg.fonttype": "none"}):
        FigureCanvasSVG(figure).print_svg(buffer, metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def _figure(height: float) -> object:
    from matplotlib.figure import Figure

    return Figure(figsize=(WIDTH_IN, height), dpi=DPI, layout="constrained")


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def _score_limits(axes: Any, scores: list[int]) -> None:
    """Whole-number score axes that always show 0 (a lone point must not fill the panel)."""
    axes.set_ylim(min(0, *scores) - 0.5, max(0, *scores) + 0.5)


def _date_axis(axes: Any, dates: list[dt.date]) -> None:
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

    if dates and (max(dates) - min(dates)).days < MIN_SPAN_DAYS:
        middle = min(dates) + (max(dates) - min(dates)) / 2
        half = dt.timedelta(days=MIN_SPAN_DAYS // 2)
        axes.set_xlim(middle - half, middle + half)
    locator = AutoDateLocator(maxticks=8)
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))


def score_trend(rows: Sequence[TalkRow], catalog_fingerprint: str) -> Chart:
    from matplotlib.ticker import MaxNLocator

    current, other = [], []
    for row in rows:
        when = _date(row.date)
        if not row.analysed or row.score is None or when is None:
            continue
        same = row.current and row.fingerprint == catalog_fingerprint
        (current if same else other).append((when, row.score))
    current.sort()
    other.sort()
    figure = _figure(4.2)
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    if current:
        top.plot(*zip(*current, strict=True), marker="o", color=CURRENT_COLOR, linewidth=1.2)
        _score_limits(top, [score for _, score in current])
    top.set_title(f"Pattern score, current generation (catalog {catalog_fingerprint[:12]})")
    top.set_ylabel("pattern score")
    top.grid(alpha=0.3)
    if not current:
        top.text(0.5, 0.5, "no current-generation talks yet", ha="center", transform=top.transAxes)
    if other:
        bottom.scatter(*zip(*other, strict=True), marker="s", color=LEGACY_COLOR)
        _score_limits(bottom, [score for _, score in other])
    else:
        bottom.text(0.5, 0.5, "no legacy results", ha="center", transform=bottom.transAxes)
    bottom.set_title("Legacy / other-catalog results: not comparable, excluded from baselines")
    bottom.set_ylabel("pattern score")
    bottom.grid(alpha=0.3)
    _date_axis(bottom, [when for when, _ in current + other])
    for axes in (top, bottom):
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    alt = f"{len(current)} current-generation scores over time; {len(other)} legacy shown apart"
    return Chart("chart-score-trend.svg", "Pattern score over time", alt, _svg(figure))


def frequency(rows: Sequence[TalkRow], catalog_fingerprint: str) -> Chart:
    from matplotlib.ticker import MaxNLocator

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
    figure = _figure(4.2)
    left, right = figure.subplots(1, 2)
    for axes, counter, color, label in (
        (left, patterns, CURRENT_COLOR, "Patterns"),
        (right, antipatterns, ANTI_COLOR, "Antipatterns"),
    ):
        top = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:TOP_N]
        if top:
            names = [name for name, _ in reversed(top)]
            axes.barh(names, [count for _, count in reversed(top)], color=color)
        else:
            axes.text(0.5, 0.5, "none detected", ha="center", transform=axes.transAxes)
            axes.set_yticks([])
        axes.set_title(label)
        axes.set_xlabel("current-generation talks")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    alt = f"{len(patterns)} distinct patterns and {len(antipatterns)} antipatterns detected"
    return Chart(
        "chart-frequency.svg", "Most frequent patterns and antipatterns", alt, _svg(figure)
    )


def coverage(rows: Sequence[TalkRow]) -> Chart:
    from matplotlib.ticker import MaxNLocator

    lanes = list(rows[0].evidence.sources) if rows else []
    counts = [sum(row.evidence.sources[lane] for row in rows) for lane in lanes]
    figure = _figure(2.6)
    axes = figure.subplots()
    axes.barh(list(reversed(lanes)), list(reversed(counts)), color=CURRENT_COLOR)
    axes.set_xlim(0, max(len(rows), 1))
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(f"talks with the evidence (of {len(rows)})")
    axes.set_title("Evidence coverage per source")
    alt = ", ".join(f"{lane}: {count}" for lane, count in zip(lanes, counts, strict=True))
    return Chart("chart-coverage.svg", "Evidence coverage per source", alt, _svg(figure))


def all_charts(rows: Sequence[TalkRow], catalog_fingerprint: str) -> list[Chart]:
    import matplotlib

    with matplotlib.rc_context({"font.size": 9, "axes.titlesize": 10}):
        return [
            score_trend(rows, catalog_fingerprint),
            frequency(rows, catalog_fingerprint),
            coverage(rows),
        ]
