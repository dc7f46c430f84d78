"""A detection's or assessment's evidence: its source gate, comparison proof and citations.

The record names one evidence source. A single source must have been
inspected and satisfy the entry's gate; a ``source_comparison`` names its
exact qualifying group, which a comparison receipt inspected. Then the
record's citations must locate proof from that source (from every member of
the group): a gate satisfied on paper but never cited would be an
unverifiable claim.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.catalog import CatalogEntry, Gate
from rvault_returns_persistence.checks.citations import QuoteRule, check_citation, locates
from rvault_returns_persistence.checks.inspection import Inspection, is_source_group
from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.gates import group_satisfies, source_satisfies
from rvault_returns_persistence.vocabulary import COMPARISON, EVIDENCE_SOURCE_NAMES


def entry_gate(entry: CatalogEntry, gate_kind: str) -> Gate | None:
    """The gate a record of ``gate_kind`` (applicability, strong or base) must satisfy."""
    if gate_kind == "applicability":
        return entry.applicability_evaluable_from
    if gate_kind == "strong":
        return entry.strong_evaluable_from
    return entry.evaluable_from


def check_sourced_record(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    gate_kind: str,
    *,
    quote: QuoteRule,
) -> None:
    """evidence_source gate, comparison proof and citations of a detection or assessment."""
    source = known_source(ctx, r_path, record)
    if source is None:
        return
    group: frozenset[str] | None = None
    if source == COMPARISON:
        group = _check_comparison(ctx, r_path, record, entry, inspection, gate_kind)
    else:
        _check_single_source(ctx, r_path, record, entry, inspection, gate_kind)
    check_evidence_text(ctx, r_path, record)
    _check_proof(ctx, r_path, record, entry, inspection, group, quote)


def known_source(ctx: ReturnContext, r_path: str, record: dict[str, Any]) -> str | None:
    """The record's evidence_source when it names one (every return version's first rule)."""
    source = record.get("evidence_source")
    if source not in EVIDENCE_SOURCE_NAMES:
        ctx.add(
            "evidence_source_unknown",
            child(r_path, "evidence_source"),
            f"{source!r} is not an evidence source",
        )
        return None
    return source


def check_evidence_text(ctx: ReturnContext, r_path: str, record: dict[str, Any]) -> None:
    if not is_text(record.get("evidence")):
        ctx.add(
            "evidence_empty",
            child(r_path, "evidence"),
            "evidence is a concise non-empty explanation",
        )


def _check_comparison(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    gate_kind: str,
) -> frozenset[str] | None:
    """The exact qualifying, inspected group a comparison names (None: none usable)."""
    u_path = child(r_path, "evidence_sources_used")
    used = record.get("evidence_sources_used")
    if "evidence_sources_used" not in record:
        ctx.add(
            "comparison_sources_used_required",
            u_path,
            "a source_comparison record names its exact qualifying group",
        )
        return None
    if not is_source_group(used):
        ctx.add(
            "comparison_group_invalid",
            u_path,
            "evidence_sources_used is two or more distinct underlying sources",
        )
        return None
    group = frozenset(used)
    if group not in entry.comparison_groups:
        ctx.add(
            "comparison_group_not_qualifying",
            u_path,
            f"{entry.id} qualifies only {[sorted(g) for g in entry.comparison_groups]}",
        )
    elif group not in inspection.groups:
        ctx.add("comparison_not_inspected", u_path, "no source_comparison receipt names this group")
    elif not group_satisfies(entry_gate(entry, gate_kind), group):
        ctx.add(
            "evidence_source_gate_unsatisfied",
            child(r_path, "evidence_source"),
            f"the group does not satisfy the {gate_kind} gate",
        )
    return group


def _check_single_source(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    gate_kind: str,
) -> None:
    """One inspected source that satisfies the entry's gate (and no comparison group)."""
    source = record["evidence_source"]
    s_path = child(r_path, "evidence_source")
    if "evidence_sources_used" in record:
        ctx.add(
            "comparison_sources_used_forbidden",
            child(r_path, "evidence_sources_used"),
            "evidence_sources_used belongs only on source_comparison records",
        )
    if source not in inspection.inspected:
        ctx.add("evidence_source_not_inspected", s_path, inspection.not_inspected(source))
    elif not source_satisfies(entry_gate(entry, gate_kind), source, inspection.inspected):
        ctx.add(
            "evidence_source_gate_unsatisfied",
            s_path,
            f"{source} does not satisfy the {gate_kind} gate of {entry.id}",
        )


def _check_proof(
    ctx: ReturnContext,
    r_path: str,
    record: dict[str, Any],
    entry: CatalogEntry,
    inspection: Inspection,
    group: frozenset[str] | None,
    quote: QuoteRule,
) -> None:
    """At least one citation, each well formed, locating proof from the gate source(s)."""
    citations = record.get("evidence_citations")
    c_path = child(r_path, "evidence_citations")
    if not isinstance(citations, list):
        ctx.add("wrong_type", c_path, "evidence_citations is an array")
        return
    if not citations:
        ctx.add("citations_required", c_path, "every new record needs at least one citation")
        return
    cited = [
        c
        for i, cit in enumerate(citations)
        if (c := check_citation(ctx, child(c_path, i), cit, entry, inspection, quote))
    ]
    source = record["evidence_source"]
    if source == COMPARISON:
        for member in sorted(group or ()):
            if not locates(cited, member):
                ctx.add(
                    "comparison_member_uncited", c_path, f"no citation locates proof from {member}"
                )
    elif not locates(cited, source):
        ctx.add(
            "gate_source_citation_missing",
            c_path,
            f"no citation locates proof from the gate source {source}",
        )
