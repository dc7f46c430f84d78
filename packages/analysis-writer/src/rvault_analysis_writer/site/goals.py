"""The speaker's improvement goals on the overview: where each stands and where it is going.

The tracking-db owner judges the goals (``rvault_tracking_db.api.improvement_goals``:
the comparability gate, the metric over talks processed after the goal was
set, the rubric, the trend per batch); the site only shows them, next to the
yardstick the speaker chose, and links the talks that were counted. The
trend is a static SVG (no script), so it prints and reads from disk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape
from rvault_tracking_db.api import improvement_goals

WIDTH = 160
HEIGHT = 40
PAD = 4


@dataclass(frozen=True)
class GoalView:
    id: str
    issue: str
    kind: str
    pattern_id: str | None
    status: str
    stored_status: str
    decision: str
    reasons: tuple[str, ...]
    baseline: str
    target: str
    current: str
    talks: tuple[tuple[str, str | None], ...]
    """``(filename, page)`` of every talk counted since the goal was set."""
    trend: Markup | None


def goal_views(database: Mapping[str, Any], pages: Mapping[str, str | None]) -> list[GoalView]:
    """Every goal as the overview shows it, active ones first, in the owner's order."""
    rows = improvement_goals(dict(database))
    views = [_view(row, pages) for row in rows]
    return sorted(views, key=lambda v: v.stored_status in ("retired", "achieved"))


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _view(row: Mapping[str, Any], pages: Mapping[str, str | None]) -> GoalView:
    return GoalView(
        id=_text(row["id"]),
        issue=_text(row["issue"]),
        kind=_text(row["kind"]),
        pattern_id=row["pattern_id"],
        status=_text(row["status"]),
        stored_status=_text(row["status_before"]),
        decision=_text(row["decision"]),
        reasons=tuple(row["reasons"]),
        baseline=_text(row["baseline_value"]),
        target=_text(row["target"]),
        current=_text(row["current_value"]) or "not measured yet",
        talks=tuple((name, pages.get(name)) for name in row["talks_counted"]),
        trend=sparkline(row["trend"], _text(row["id"])),
    )


def sparkline(points: Sequence[Mapping[str, Any]], label: str) -> Markup | None:
    """The goal's value after each batch as a small line on a 0-1 scale, or None."""
    if not points:
        return None
    step = (WIDTH - 2 * PAD) / max(len(points) - 1, 1)
    coords = [
        (PAD + i * step, HEIGHT - PAD - float(p["value"]) * (HEIGHT - 2 * PAD))
        for i, p in enumerate(points)
    ]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    words = ", ".join(f"{p['as_of'][:10]}: {float(p['value']):.2f}" for p in points)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2"/>' for x, y in coords)
    return Markup(
        f'<svg class="trend" role="img" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-label="{escape(label)} after each batch: '
        f'{escape(words)}"><title>{escape(words)}</title>'
        f'<polyline fill="none" stroke="currentColor" points="{path}"/>{dots}</svg>'
    )
