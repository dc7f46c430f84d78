"""The comparison group of a replayed v1-v3 ``source_comparison`` detection.

Return v4/v5 names its ``evidence_sources_used`` group structurally; saved
v1-v3 artifacts may omit it. Persistence infers the group only when exactly
one of the entry's catalog comparison groups satisfies the detection's gate;
zero or several qualifying groups stay replayable but are named in the
scoring-generation reasons (``comparison_group_ambiguous:<pattern_id>``), so
the validator, persistence and the analysis writer decide it one way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.gates import group_satisfies
from rvault_returns_persistence.vocabulary import COMPARISON


def _unnamed(ret: Any) -> Iterator[dict[str, Any]]:
    po = ret.get("pattern_observations") if isinstance(ret, dict) else None
    if not isinstance(po, dict):
        return
    for lane in ("patterns_detected", "antipatterns_detected"):
        records = po.get(lane)
        for record in records if isinstance(records, list) else ():
            if (
                isinstance(record, dict)
                and record.get("evidence_source") == COMPARISON
                and "evidence_sources_used" not in record
            ):
                yield record


def qualifying_groups(catalog: Catalog, record: dict[str, Any]) -> list[list[str]]:
    entry = catalog.get(record.get("pattern_id"))
    if entry is None:
        return []
    gate = (
        entry.strong_evaluable_from
        if record.get("confidence") == "strong"
        else (entry.evaluable_from)
    )
    return sorted(sorted(g) for g in entry.comparison_groups if group_satisfies(gate, g))


def ambiguity_reasons(catalog: Catalog, ret: Any) -> set[str]:
    """``comparison_group_ambiguous:<id>`` for each unnamed group that is not exactly one
    (asked only of v1-v3 returns: :mod:`.scoring_generation_legacy`)."""
    return {
        f"comparison_group_ambiguous:{record.get('pattern_id')}"
        for record in _unnamed(ret)
        if len(qualifying_groups(catalog, record)) != 1
    }


def infer_groups(catalog: Catalog, observations: dict[str, Any]) -> None:
    """Name the group in place wherever exactly one qualifies (``observations`` is a copy)."""
    for record in _unnamed({"pattern_observations": observations}):
        groups = qualifying_groups(catalog, record)
        if len(groups) == 1:
            record["evidence_sources_used"] = groups[0]
