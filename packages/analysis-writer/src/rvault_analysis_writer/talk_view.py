"""The talk view model: what an analysis shows, independent of the output format.

The Markdown renderer (``rvault-analysis write``) and a later static site read
the same :class:`TalkView`, so a page and a file can never disagree about
provenance, legacy labelling or citations. The view is built only from the
persisted effective talk (the canonical merged payload persistence wrote),
the claim that closed it, the catalog fingerprint the writer recomputed, and
``catalog_feedback`` read from the receipt-bound return (the one side channel
the spec allows, because it is intentionally not stored on the talk).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rvault_returns_persistence import api as returns_api

#: Provenance keys, in header order. Every analysis carries every key; an
#: unknown value is the literal ``unknown`` or ``none`` as documented in the README.
PROVENANCE_KEYS = (
    "filename",
    "title",
    "conference",
    "date",
    "status",
    "transcript_source",
    "transcript_path",
    "slide_source",
    "slides_local_path",
    "processed_date",
    "run_id",
    "batch_id",
    "reprocess_generation",
    "return_schema_version",
    "result_payload_sha256",
    "pattern_scoring_generation_status",
    "pattern_scoring_generation_reasons",
    "pattern_scoring_schema_version",
    "pattern_catalog_fingerprint",
    "evidence_basis",
)

#: The six documented verbatim lanes, in reading order (talk order first).
VERBATIM_LANES = (
    ("opening_lines", "Opening lines"),
    ("closing_lines", "Closing lines"),
    ("signature_phrases", "Signature phrases"),
    ("jokes", "Jokes"),
    ("transitions", "Transitions"),
    ("audience_addresses", "Audience addresses"),
)

#: The five catalog-feedback lanes, in the return contract's order (its owner's vocabulary).
FEEDBACK_LANES = tuple(
    (lane, lane.replace("_", " ").capitalize()) for lane in returns_api.FEEDBACK_LANES
)

#: Promoted queryable scalars (read from the talk's top level).
PROMOTED_SCALARS = (
    "delivery_language",
    "co_presenter",
    "co_presenters",
    "slide_count",
    "slide_design_style",
    "illustration_style",
    "opening_type",
    "closing_type",
    "narrative_arc_type",
    "audience_interaction_count",
    "pattern_score",
)

#: The closed per-slide ledger row, in the return contract owner's column order.
LEDGER_COLUMNS = returns_api.LEDGER_ROW_KEYS

#: Evidence bases, strongest first (see :func:`evidence_basis`).
SOURCE_VERIFIED = "source-verified"
SOURCE_LOCATED_ARCHIVAL = "source-located-archival"
LEGACY_UNVERIFIED = "legacy-unverified"

UNKNOWN = "unknown"
NONE = "none"


@dataclass(frozen=True)
class Citation:
    """One locator, already worded for a reader (translation first)."""

    source: str
    channel: str
    locator: str
    text: str | None = None
    original: str | None = None
    line_start: int | None = None
    """Where persistence located it (the site places it on the talk's time axis)."""
    start_seconds: float | None = None
    slide_numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Observation:
    """A detection or an applicability assessment with its citations."""

    pattern_id: str
    kind: str
    confidence: str | None
    evidence_source: str | None
    evidence_sources_used: tuple[str, ...]
    evidence: str
    result: str | None
    condition_id: str | None
    outcome: str | None
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class LegacyLabel:
    """Why a result is legacy and what that excludes it from."""

    status: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class TalkView:
    filename: str
    title: str
    provenance: tuple[tuple[str, str], ...]
    legacy: LegacyLabel | None
    evidence_basis: str
    rhetoric_notes: str
    areas_for_improvement: str
    adherence_assessment: str
    summary: Table
    sequences: tuple[tuple[str, tuple[str, ...]], ...]
    ledger: Table | None
    image_sources: Table | None
    image_source_basis: str | None
    structured_objects: tuple[tuple[str, Table], ...]
    verbatim: tuple[tuple[str, str, tuple[str, ...]], ...]
    inspection: Table
    detections: tuple[Observation, ...]
    antidetections: tuple[Observation, ...]
    assessments: tuple[Observation, ...]
    not_evaluable: Table
    outcomes: Table
    pattern_score: str
    feedback: tuple[tuple[str, str, tuple[tuple[tuple[str, str], ...], ...]], ...] = field(
        default=()
    )
    #: False when the return carried no ``catalog_feedback`` (only legacy returns may).
    feedback_present: bool = True


# --------------------------------------------------------------------------- text


def scalar(value: Any) -> str:
    """A JSON scalar as a reader sees it (lists joined, objects never reach here)."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(scalar(v) for v in value) if value else NONE
    if isinstance(value, dict):
        return "; ".join(f"{k}: {scalar(value[k])}" for k in sorted(value)) or NONE
    return str(value)


def seconds(value: Any) -> str:
    """``725.5`` -> ``12:05.5``; the exact seconds follow in the locator."""
    total = float(value)
    minutes, rest = divmod(total, 60.0)
    shown = f"{rest:04.1f}" if rest != int(rest) else f"{int(rest):02d}"
    return f"{int(minutes)}:{shown}"


def _number_ranges(numbers: Sequence[Any]) -> str:
    return ", ".join(str(n) for n in numbers)


# --------------------------------------------------------------------------- citations


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def citation_view(citation: Mapping[str, Any]) -> Citation:
    """A persisted (engine-enriched) citation, worded English-first.

    A transcript citation with a translation shows the translation and then
    the exact source-language quote in parentheses; without one the quote
    stands alone. Locations come from persistence (line numbers, seconds,
    the metadata value it recorded), never from the worker.
    """
    source = str(citation.get("source", UNKNOWN))
    channel = str(citation.get("channel", UNKNOWN))
    start = _number(citation.get("start_seconds"))
    if channel in ("transcript", "timed_transcript"):
        quote = str(citation.get("quote", ""))
        translation = citation.get("translation")
        first, last = citation.get("line_start"), citation.get("line_end")
        if first is None:
            locator = "transcript (no line location recorded)"
        elif first == last:
            locator = f"transcript line {first}"
        else:
            locator = f"transcript lines {first}-{last}"
        if channel == "timed_transcript" and "start_seconds" in citation:
            locator += (
                f", {seconds(citation['start_seconds'])}-{seconds(citation['end_seconds'])}"
                f" ({citation['start_seconds']}-{citation['end_seconds']} s)"
            )
        line = first if isinstance(first, int) and not isinstance(first, bool) else None
        if isinstance(translation, str) and translation.strip():
            return Citation(source, channel, locator, translation, quote, line, start)
        return Citation(source, channel, locator, quote, None, line, start)
    if channel in ("slides", "slide_sequence"):
        numbers = citation.get("slide_numbers", [])
        label = "native deck" if source == "native_deck" else "static slides"
        if channel == "slide_sequence":
            locator = f"{label} sequence {' -> '.join(str(n) for n in numbers)}"
        else:
            noun = "slide" if len(numbers) == 1 else "slides"
            locator = f"{label} {noun} {_number_ranges(numbers)}"
        pages = tuple(n for n in numbers if isinstance(n, int) and not isinstance(n, bool))
        return Citation(source, channel, locator, slide_numbers=pages)
    if channel == "video":
        first, last = citation.get("start_seconds"), citation.get("end_seconds")
        locator = f"delivery video {seconds(first)}-{seconds(last)} ({first}-{last} s)"
        return Citation(source, channel, locator, start_seconds=start)
    if channel == "talk_metadata":
        name = citation.get("field", UNKNOWN)
        locator = f"talk metadata `{name}`"
        value = citation.get("value")
        return Citation(source, channel, locator, None if value is None else scalar(value))
    return Citation(source, channel, f"{source} / {channel}")


def _observation(record: Mapping[str, Any], kind: str, outcomes: Mapping[str, str]) -> Observation:
    pattern_id = str(record.get("pattern_id", UNKNOWN))
    return Observation(
        pattern_id=pattern_id,
        kind=kind,
        confidence=record.get("confidence"),
        evidence_source=record.get("evidence_source"),
        evidence_sources_used=tuple(record.get("evidence_sources_used", ())),
        evidence=str(record.get("evidence", "")),
        result=record.get("result"),
        condition_id=record.get("condition_id"),
        outcome=outcomes.get(pattern_id),
        citations=tuple(citation_view(c) for c in record.get("evidence_citations") or ()),
    )


# --------------------------------------------------------------------------- basis


def evidence_basis(talk: Mapping[str, Any], return_version: int | None) -> str:
    """How far the rendered evidence may be trusted.

    Evidence ledger v2 (a current v5 generation) was verified against the
    exact artifacts by persistence: ``source-verified``. A v4 replay keeps
    source locations under ledger v1 but is archival. Anything from v1-v3
    (where ``evidence_citations: []`` is the legacy marker) is never
    presented as source-verified.
    """
    po = talk.get("pattern_observations")
    ledger = po.get("evidence_schema_version") if isinstance(po, Mapping) else None
    current = talk.get("pattern_scoring_generation_status") == "current"
    if ledger == 2 and current and return_version == 5:
        return SOURCE_VERIFIED
    if return_version == 4:
        return SOURCE_LOCATED_ARCHIVAL
    return LEGACY_UNVERIFIED


# --------------------------------------------------------------------------- structured


def _summary(talk: Mapping[str, Any], structured: Mapping[str, Any]) -> Table:
    rows: list[tuple[str, str]] = []
    for key in PROMOTED_SCALARS:
        if key in talk:
            rows.append((key, scalar(talk[key])))
    for key in sorted(structured):
        value = structured[key]
        if key in PROMOTED_SCALARS or isinstance(value, dict | list):
            continue
        if key in ("image_source_distribution_basis",):
            continue
        rows.append((key, scalar(value)))
    return Table(("field", "value"), tuple(rows))


def _ledger(structured: Mapping[str, Any]) -> Table | None:
    rows = structured.get("per_slide_visual")
    if not isinstance(rows, list):
        return None
    body = tuple(
        tuple(scalar(row.get(col)) for col in LEDGER_COLUMNS)
        for row in rows
        if isinstance(row, Mapping)
    )
    return Table(LEDGER_COLUMNS, body)


def _image_sources(structured: Mapping[str, Any]) -> Table | None:
    counts = structured.get("image_source_distribution")
    if not isinstance(counts, Mapping):
        return None
    return Table(("source", "count"), tuple((k, scalar(counts[k])) for k in sorted(counts)))


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested objects as dotted key rows, so any registered object reads as a table."""
    if isinstance(value, Mapping):
        if not value:
            return [(prefix or "(empty)", NONE)] if prefix else []
        rows: list[tuple[str, str]] = []
        for key in sorted(value):
            rows.extend(_flatten(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return rows
    if isinstance(value, list) and any(isinstance(v, Mapping | list) for v in value):
        rows = []
        for index, item in enumerate(value, 1):
            rows.extend(_flatten(item, f"{prefix}[{index}]"))
        return rows or [(prefix, NONE)]
    return [(prefix, scalar(value))]


def _structured_objects(structured: Mapping[str, Any]) -> tuple[tuple[str, Table], ...]:
    out = []
    for key in sorted(structured):
        value = structured[key]
        if key in ("per_slide_visual", "image_source_distribution") or not isinstance(
            value, Mapping
        ):
            continue
        out.append((key, Table(("field", "value"), tuple(_flatten(value)))))
    return tuple(out)


def _sequences(structured: Mapping[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for key in sorted(structured):
        value = structured[key]
        if key == "per_slide_visual" or not isinstance(value, list):
            continue
        if key in PROMOTED_SCALARS:
            continue
        out.append((key, tuple(scalar(v) for v in value)))
    return tuple(out)


# --------------------------------------------------------------------------- observations


def _ranges(row: Mapping[str, Any]) -> str:
    for key, unit in (("line_ranges", "lines"), ("page_ranges", "pages")):
        if key in row:
            return f"{unit} " + ", ".join(f"{a}-{b}" for a, b in row[key])
    if "time_ranges" in row:
        return "seconds " + ", ".join(f"{a}-{b}" for a, b in row["time_ranges"])
    if "evidence_sources_used" in row:
        scope = row.get("comparison_scope", UNKNOWN)
        return f"{' + '.join(row['evidence_sources_used'])} ({scope})"
    return NONE


def _extent(row: Mapping[str, Any]) -> str:
    for key, unit in (("line_count", "lines"), ("page_count", "pages"), ("duration_seconds", "s")):
        if key in row:
            return f"{row[key]} {unit}"
    return NONE


def _inspection(po: Mapping[str, Any]) -> Table:
    rows = []
    for row in po.get("source_inspection") or ():
        if not isinstance(row, Mapping):
            continue
        reason = row.get("absence_capability_reason")
        capable = row.get("absence_capability_complete")
        rows.append(
            (
                str(row.get("source", UNKNOWN)),
                _ranges(row),
                _extent(row),
                scalar(row.get("coverage_complete")) if "coverage_complete" in row else UNKNOWN,
                (scalar(capable) if capable is not None else UNKNOWN)
                + (f" ({reason})" if reason else ""),
                str(row.get("artifact_path", NONE)),
                str(row.get("artifact_sha256", NONE)),
            )
        )
    columns = (
        "source",
        "inspected",
        "extent",
        "coverage complete",
        "absence-capable",
        "artifact",
        "sha256",
    )
    return Table(columns, tuple(rows))


def _not_evaluable(po: Mapping[str, Any]) -> Table:
    rows = []
    sources = _source_states(po)
    for row in po.get("not_evaluable") or ():
        if not isinstance(row, Mapping):
            continue
        groups = row.get("required_source_groups")
        reason = str(row.get("reason_code", UNKNOWN))
        rows.append(
            (
                str(row.get("pattern_id", UNKNOWN)),
                reason + _unmet_gate(reason, groups, sources),
                " | ".join(" + ".join(g) for g in groups) if groups else NONE,
            )
        )
    return Table(("pattern", "reason", "required sources"), tuple(rows))


COVERAGE_REASONS = ("missing_required_source_coverage", "missing_applicability_source_coverage")


def _source_states(po: Mapping[str, Any]) -> dict[str, str]:
    """Per inspected source, why it cannot carry an absence ("" when it can)."""
    states: dict[str, str] = {}
    for row in po.get("source_inspection") or ():
        if not isinstance(row, Mapping) or not isinstance(row.get("source"), str):
            continue
        if row.get("coverage_complete") is not True:
            states[row["source"]] = "inspected, coverage incomplete"
        elif row.get("absence_capability_complete") is not True:
            why = row.get("absence_capability_reason")
            states[row["source"]] = "complete but not absence-capable" + (f": {why}" if why else "")
        else:
            states[row["source"]] = ""
    return states


def _unmet_gate(reason: str, groups: Any, sources: Mapping[str, str]) -> str:
    """Which part of the gate failed, so the reason never reads against the inspection table.

    A coverage reason next to a source the table shows inspected and complete
    is explained: that source is not absence-capable (a slide PDF rebuilt
    from video, say), or another member of its group was not inspected.
    """
    if reason not in COVERAGE_REASONS or not isinstance(groups, list):
        return ""
    named = {s for g in groups if isinstance(g, list) for s in g if isinstance(s, str)}
    if not named & {s for s, why in sources.items() if not why or why.startswith("complete")}:
        return ""  # nothing the table shows complete: the reason agrees with it
    unmet = [f"{s} {sources.get(s) or 'capable'}" if s in sources else f"{s} not inspected"
             for s in sorted(named) if sources.get(s, "missing") != ""]  # fmt: skip
    return f" (unmet gate: {'; '.join(unmet)})" if unmet else ""


# --------------------------------------------------------------------------- feedback


def _feedback(
    feedback: Mapping[str, Any] | None,
) -> tuple[tuple[str, str, tuple[tuple[tuple[str, str], ...], ...]], ...]:
    out = []
    for lane, heading in FEEDBACK_LANES:
        records = feedback.get(lane) if isinstance(feedback, Mapping) else None
        items = tuple(
            tuple((key, scalar(record[key])) for key in sorted(record))
            for record in records or ()
            if isinstance(record, Mapping)
        )
        out.append((lane, heading, items))
    return tuple(out)


# --------------------------------------------------------------------------- build


def _mapping(value: Any) -> Mapping[str, Any]:
    """A persisted object field, or empty when the talk lacks it or it is malformed."""
    return value if isinstance(value, Mapping) else {}


def _provenance(
    talk: Mapping[str, Any],
    claim: Mapping[str, Any],
    return_version: int | None,
    basis: str,
) -> dict[str, str]:
    """Every provenance value, keyed as :data:`PROVENANCE_KEYS`: talk fields, then the claim's."""
    status = talk.get("pattern_scoring_generation_status")
    reasons = list(talk.get("pattern_scoring_generation_reasons") or ())
    return {
        "filename": str(talk.get("filename")),
        "title": scalar(talk.get("title", UNKNOWN)),
        "conference": scalar(talk.get("conference", UNKNOWN)),
        "date": scalar(talk.get("date", UNKNOWN)),
        "status": scalar(talk.get("status")),
        # Absent transcript_source means provenance unknown; never a guess.
        "transcript_source": scalar(talk.get("transcript_source", UNKNOWN)),
        "transcript_path": scalar(talk.get("transcript_path")),
        "slide_source": scalar(talk.get("slide_source", UNKNOWN)),
        "slides_local_path": scalar(talk.get("slides_local_path")),
        "processed_date": scalar(talk.get("processed_date")),
        "run_id": scalar(claim.get("run_id")),
        "batch_id": scalar(claim.get("batch_id")),
        "reprocess_generation": scalar(claim.get("reprocess_generation")),
        "return_schema_version": scalar(return_version if return_version else UNKNOWN),
        "result_payload_sha256": scalar(claim.get("result_payload_sha256")),
        "pattern_scoring_generation_status": scalar(status),
        "pattern_scoring_generation_reasons": scalar(reasons),
        "pattern_scoring_schema_version": scalar(talk.get("pattern_scoring_schema_version")),
        "pattern_catalog_fingerprint": scalar(talk.get("pattern_catalog_fingerprint")),
        "evidence_basis": basis,
    }


def _legacy(talk: Mapping[str, Any]) -> LegacyLabel | None:
    """The legacy label of a talk whose pattern scoring is not ``current``."""
    status = talk.get("pattern_scoring_generation_status")
    if status == "current":
        return None
    reasons = tuple(talk.get("pattern_scoring_generation_reasons") or ())
    return LegacyLabel(str(status or UNKNOWN), reasons)


def _verbatim(talk: Mapping[str, Any]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The documented verbatim lanes the talk carries, in :data:`VERBATIM_LANES` order."""
    source = _mapping(talk.get("verbatim_examples"))
    return tuple(
        (lane, heading, tuple(str(v) for v in source[lane]))
        for lane, heading in VERBATIM_LANES
        if isinstance(source.get(lane), list)
    )


def _observations(
    po: Mapping[str, Any], key: str, kind: str, outcomes: Mapping[str, str]
) -> tuple[Observation, ...]:
    """One observation list of ``pattern_observations`` (malformed records skipped)."""
    return tuple(
        _observation(r, kind, outcomes) for r in po.get(key) or () if isinstance(r, Mapping)
    )


def build_view(
    talk: Mapping[str, Any],
    *,
    claim: Mapping[str, Any],
    return_version: int | None,
    catalog_feedback: Mapping[str, Any] | None,
) -> TalkView:
    """The view of one processed talk as persisted (never the raw return)."""
    structured = _mapping(talk.get("structured_data"))
    po = _mapping(talk.get("pattern_observations"))
    outcomes = {
        str(r.get("pattern_id")): str(r.get("outcome"))
        for r in po.get("pattern_outcomes") or ()
        if isinstance(r, Mapping)
    }
    basis = evidence_basis(talk, return_version)
    values = _provenance(talk, claim, return_version, basis)
    basis_text = structured.get("image_source_distribution_basis")
    return TalkView(
        filename=values["filename"],
        title=values["title"] if values["title"] != UNKNOWN else values["filename"],
        provenance=tuple((key, values[key]) for key in PROVENANCE_KEYS),
        legacy=_legacy(talk),
        evidence_basis=basis,
        rhetoric_notes=str(talk.get("rhetoric_notes") or ""),
        areas_for_improvement=str(talk.get("areas_for_improvement") or ""),
        adherence_assessment=str(talk.get("adherence_assessment") or ""),
        summary=_summary(talk, structured),
        sequences=_sequences(structured),
        ledger=_ledger(structured),
        image_sources=_image_sources(structured),
        image_source_basis=str(basis_text) if isinstance(basis_text, str) else None,
        structured_objects=_structured_objects(structured),
        verbatim=_verbatim(talk),
        inspection=_inspection(po),
        detections=_observations(po, "patterns_detected", "pattern", outcomes),
        antidetections=_observations(po, "antipatterns_detected", "antipattern", outcomes),
        assessments=_observations(po, "applicability_assessments", "assessment", outcomes),
        not_evaluable=_not_evaluable(po),
        outcomes=Table(("pattern", "outcome"), tuple(sorted(outcomes.items()))),
        pattern_score=scalar(po.get("pattern_score", talk.get("pattern_score"))),
        feedback=_feedback(catalog_feedback),
        feedback_present=isinstance(catalog_feedback, Mapping),
    )
