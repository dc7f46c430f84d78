"""Pattern outcomes of one talk as table rows, each joined with its proof.

A current (evidence ledger v2) talk has exactly one outcome per observable
catalog entry, but the proof for a row lives elsewhere in the ledger: the
detection for ``detected``, the applicability assessment for
``not_applicable``, the ``not_evaluable`` record for its reason. The talk
view model (:mod:`rvault_analysis_writer.talk_view`, shared with ``write``)
already words every citation from its persisted canonical locator; this
module only joins the rows and adds the catalog's name for each id. A legacy
ledger has no outcome matrix: its detections are listed as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rvault_returns_persistence.api import Catalog

from rvault_analysis_writer.talk_view import Citation, Observation, TalkView


@dataclass(frozen=True)
class OutcomeRow:
    pattern_id: str
    name: str
    kind: str
    outcome: str
    detail: str
    citations: tuple[Citation, ...]

    @property
    def needs_citation(self) -> bool:
        """A detection without citations is the legacy marker: never source-verified."""
        return self.outcome.startswith("detected") and not self.citations


def _name(catalog: Catalog, pattern_id: str) -> tuple[str, str]:
    entry = catalog.get(pattern_id)
    if entry is None:
        return pattern_id, "not in catalog"
    name = entry.raw.get("name")
    return (name if isinstance(name, str) else pattern_id), entry.type


def _row(catalog: Catalog, pattern_id: str, outcome: str, obs: Observation | None) -> OutcomeRow:
    name, kind = _name(catalog, pattern_id)
    if obs is None:
        return OutcomeRow(pattern_id, name, kind, outcome, "", ())
    detail = obs.evidence
    if obs.kind == "assessment" and obs.condition_id:
        detail = f"{obs.condition_id}: {detail}"
    return OutcomeRow(pattern_id, name, kind, outcome, detail, obs.citations)


def outcome_rows(view: TalkView, catalog: Catalog) -> list[OutcomeRow]:
    detections = {o.pattern_id: o for o in (*view.detections, *view.antidetections)}
    if not view.outcomes.rows:
        return [_row(catalog, pid, "detected (legacy)", o) for pid, o in sorted(detections.items())]
    assessments = {o.pattern_id: o for o in view.assessments}
    unavailable = {row[0]: row for row in view.not_evaluable.rows}
    rows = []
    for pattern_id, outcome in view.outcomes.rows:
        if outcome == "detected":
            rows.append(_row(catalog, pattern_id, outcome, detections.get(pattern_id)))
        elif outcome == "not_applicable":
            rows.append(_row(catalog, pattern_id, outcome, assessments.get(pattern_id)))
        elif outcome == "not_evaluable" and pattern_id in unavailable:
            _, reason, required = unavailable[pattern_id]
            name, kind = _name(catalog, pattern_id)
            detail = reason if required == "none" else f"{reason}; needs {required}"
            rows.append(OutcomeRow(pattern_id, name, kind, outcome, detail, ()))
        else:
            rows.append(_row(catalog, pattern_id, outcome, None))
    return rows


def outcome_counts(rows: Sequence[OutcomeRow]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.outcome] = counts.get(row.outcome, 0) + 1
    return sorted(counts.items())
