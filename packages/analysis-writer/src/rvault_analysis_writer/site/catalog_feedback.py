"""What the talks taught the catalog: feedback aggregated across every receipt-bound return.

The returns-persistence owner aggregates (``catalog_feedback_report``: exact
catalog ids apart from suggested names, polarity from the catalog, per-entry
provenance bound to the stored claim receipts). The overview counts only
entries whose return is a receipt persist stored, the same binding the talk
pages use, so a draft return lying in the vault never speaks for a talk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_returns_persistence.api import Catalog, catalog_feedback_report

BOUND = ("current", "historical")


@dataclass(frozen=True)
class FeedbackGroup:
    name: str
    polarity: str
    occurrences: int
    lanes: str
    talks: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class CatalogFeedback:
    ids: tuple[FeedbackGroup, ...]
    suggestions: tuple[FeedbackGroup, ...]
    unbound: int
    """Entries read from returns no stored receipt names (not shown)."""


def catalog_feedback(
    paths: Sequence[Path],
    *,
    db: Path,
    vault_root: Path,
    catalog: Catalog,
    pages: Mapping[str, str | None],
) -> CatalogFeedback | None:
    """The overview's feedback tables, or None when no returns were named."""
    if not paths:
        return None
    report = catalog_feedback_report(
        list(paths), database_path=db, vault_root=vault_root, catalog=catalog
    )
    ids = _groups(report["exact_catalog_ids"], "pattern_id", pages)
    names = _groups(report["suggestions"], "name", pages)
    unbound = sum(1 for entry in report["entries"] if entry["provenance"]["receipt"] not in BOUND)
    return CatalogFeedback(ids, names, unbound)


def _groups(
    rows: Sequence[Mapping[str, Any]], key: str, pages: Mapping[str, str | None]
) -> tuple[FeedbackGroup, ...]:
    groups = []
    for row in rows:
        bound = [p for p in row["provenance"] if p["receipt"] in BOUND]
        if not bound:
            continue
        lanes = Counter(p["lane"] for p in bound)
        talks = sorted({p["talk_filename"] for p in bound})
        groups.append(
            FeedbackGroup(
                name=str(row[key]),
                polarity=str(row["polarity"]),
                occurrences=len(bound),
                lanes=", ".join(
                    f"{lane.replace('_', ' ')} {n}" for lane, n in sorted(lanes.items())
                ),
                talks=tuple((t, pages.get(t)) for t in talks),
            )
        )
    return tuple(sorted(groups, key=lambda g: (-g.occurrences, g.name)))
