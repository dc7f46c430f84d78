"""Applying one validated return to its talk record.

Return versions 2-5 share the complete-snapshot contract: a supplied
declared scalar or list replaces the prior value (an empty value is a real
snapshot), each registered structured object and each verbatim lane is
replaced whole so no child of an older run survives, the image-source
distribution and its basis move as one group, ``structured_data.extensions``
is the only recursively additive place, and an omitted field is untouched.
Missing/v1 returns keep the historical additive contract (empty values are
no-ops, objects merge recursively, lists gain new items). ``clear_fields``
runs first and also clears the top-level copy of a promoted scalar. A
skipped result changes only its status (and, elsewhere, its lease).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_contracts.cli import Refusal
from rvault_tracking_db import api as tracking

from rvault_returns_persistence import scoring_generation
from rvault_returns_persistence.canonical_ledger import Ledger, stamp_metadata
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.legacy_comparison import infer_groups
from rvault_returns_persistence.persist_gate import Member
from rvault_returns_persistence.vocabulary import CLEARABLE_TOP_LEVEL, VERBATIM_LANES

# structured_data scalars the talk record also carries at top level (queryable copies).
PROMOTED: tuple[str, ...] = (
    "audience_interaction_count",
    "closing_type",
    "co_presenter",
    "co_presenters",
    "delivery_language",
    "illustration_style",
    "narrative_arc_type",
    "opening_type",
    "slide_count",
    "slide_design_style",
)
IMAGE_GROUP = ("image_source_distribution", "image_source_distribution_basis")
TOP_LEVEL_FIELDS = tuple(f for f in CLEARABLE_TOP_LEVEL if f != "adherence_comparison")


@dataclass
class MergeResult:
    talk: dict[str, Any]
    contract: str
    merged: set[str] = field(default_factory=set)
    cleared: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)


def _is_empty(value: Any) -> bool:
    return value == "" or value == [] or value == {} or value is None


def _additive(prior: Any, incoming: Any) -> Any:
    """The legacy v1 merge of one value (empty incoming values never reach here)."""
    if isinstance(prior, dict) and isinstance(incoming, dict):
        out = dict(prior)
        for key, value in incoming.items():
            if _is_empty(value):
                continue
            out[key] = _additive(out.get(key), value)
        return out
    if isinstance(prior, list) and isinstance(incoming, list):
        return prior + [copy.deepcopy(v) for v in incoming if v not in prior]
    return copy.deepcopy(incoming)


def apply_clear_fields(talk: dict[str, Any], paths: list[str]) -> list[str]:
    """Delete each dotted path (validated analysis-owned); returns the paths that existed."""
    cleared: list[str] = []
    for dotted in paths:
        head, _, rest = dotted.partition(".")
        if not rest:
            if head in talk:
                del talk[head]
                cleared.append(dotted)
            continue
        node: Any = talk.get(head)
        parts = rest.split(".")
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and parts[-1] in node:
            del node[parts[-1]]
            cleared.append(dotted)
        promoted = head == "structured_data" and len(parts) == 1 and parts[0] in PROMOTED
        if promoted and parts[0] in talk:
            del talk[parts[0]]  # the promoted copy goes with its source
            if dotted not in cleared:
                cleared.append(dotted)
    return cleared


def _container(talk: dict[str, Any], name: str) -> dict[str, Any]:
    value = talk.get(name)
    if not isinstance(value, dict):
        value = {}  # a valid snapshot may repair a legacy non-object container
    talk[name] = value
    return value


def _snapshot(result: MergeResult, ret: dict[str, Any]) -> None:
    talk = result.talk
    for name in TOP_LEVEL_FIELDS:
        if name in ret:
            talk[name] = copy.deepcopy(ret[name])
            result.merged.add(name)
    if "adherence_comparison" in talk and "adherence_comparison" not in ret:
        del talk["adherence_comparison"]  # a stale comparison of a prior generation
        result.merged.add("adherence_comparison")
    elif "adherence_comparison" in ret:
        talk["adherence_comparison"] = copy.deepcopy(ret["adherence_comparison"])
        result.merged.add("adherence_comparison")
    incoming = ret.get("structured_data")
    if isinstance(incoming, dict) and incoming:
        structured = _container(talk, "structured_data")
        for key, value in incoming.items():
            if key == "extensions":
                structured[key] = _additive(structured.get(key, {}), value)
            elif key in IMAGE_GROUP:
                for member in IMAGE_GROUP:  # one dependent group
                    if member in incoming:
                        structured[member] = copy.deepcopy(incoming[member])
                    else:
                        structured.pop(member, None)
            else:
                structured[key] = copy.deepcopy(value)
            result.merged.add(f"structured_data.{key}")
    lanes = ret.get("verbatim_examples")
    if isinstance(lanes, dict) and lanes:
        verbatim = _container(talk, "verbatim_examples")
        for lane, value in lanes.items():
            verbatim[lane] = copy.deepcopy(value)
            result.merged.add(f"verbatim_examples.{lane}")
    stale = sorted(set(talk.get("verbatim_examples") or {}) - set(VERBATIM_LANES))
    if isinstance(talk.get("verbatim_examples"), dict) and stale:
        raise Refusal(
            "verbatim_lane_stale",
            f"the effective verbatim_examples would keep undeclared lanes {stale}",
            "$.verbatim_examples",
            hint="add " + ", ".join(f"verbatim_examples.{s}" for s in stale) + " to clear_fields",
        )


def _legacy(result: MergeResult, ret: dict[str, Any]) -> None:
    talk = result.talk
    for name in (*TOP_LEVEL_FIELDS, "adherence_comparison"):
        if name in ret:
            if _is_empty(ret[name]):
                result.warnings.append(
                    {
                        "code": "legacy_empty_value_ignored",
                        "message": f"a v1 return's empty {name} is a no-op (additive contract)",
                        "path": f"$.{name}",
                    }
                )
                continue
            talk[name] = _additive(talk.get(name), ret[name])
            result.merged.add(name)
    for block in ("structured_data", "verbatim_examples"):
        incoming = ret.get(block)
        if isinstance(incoming, dict):
            for key, value in incoming.items():
                if _is_empty(value):
                    continue
                container = _container(talk, block)
                container[key] = _additive(container.get(key), value)
                result.merged.add(f"{block}.{key}")


def _promote(result: MergeResult) -> None:
    talk = result.talk
    structured = talk.get("structured_data")
    if not isinstance(structured, dict):
        return
    for name in PROMOTED:
        if name in structured and talk.get(name) != structured[name]:
            talk[name] = copy.deepcopy(structured[name])
            result.merged.add(name)


def merge_processed(
    talk: dict[str, Any],
    ret: dict[str, Any],
    *,
    version: int,
    observations: dict[str, Any] | None,
) -> MergeResult:
    """The talk after ``clear_fields`` and the return's analysis content (no claim/stamps)."""
    result = MergeResult(copy.deepcopy(talk), "legacy_additive" if version == 1 else "snapshot")
    clear = ret.get("clear_fields")
    if isinstance(clear, list):
        result.cleared = apply_clear_fields(result.talk, clear)
    if version == 1:
        _legacy(result, ret)
        if isinstance(ret.get("pattern_observations"), dict):
            prior = result.talk.get("pattern_observations")
            result.talk["pattern_observations"] = _additive(
                prior if isinstance(prior, dict) else {}, ret["pattern_observations"]
            )
            result.merged.add("pattern_observations")
    else:
        _snapshot(result, ret)
        if observations is None and isinstance(ret.get("pattern_observations"), dict):
            observations = copy.deepcopy(ret["pattern_observations"])  # v2/v3: as returned
        if observations is not None:
            result.talk["pattern_observations"] = observations
            result.merged.add("pattern_observations")
    _promote(result)
    nested = result.talk.get("pattern_observations")
    score = nested.get("pattern_score") if isinstance(nested, dict) else None
    if isinstance(score, dict):
        score = score.get("score")
    if isinstance(score, int) and not isinstance(score, bool):
        result.talk["pattern_score"] = score
        result.merged.add("pattern_score")
    return result


# --------------------------------------------------------------------------- persist's merge step

CURRENT_TALK_SCHEMA = 5
CURRENT_SCORING_SCHEMA = 5


@dataclass(frozen=True)
class Merged:
    """A member's new talk record (its claim closed) and its row of the report."""

    member: Member
    talk: dict[str, Any]
    row: dict[str, Any]


def merge_member(member: Member, ledger: Ledger | None, catalog: Catalog, stamp: str) -> Merged:
    """Step 4 of persist: the return applied to its talk, the claim closed with its receipt.

    A skipped return changes only the status; a processed one its analysis
    (:func:`merge_processed`, with the canonical ``ledger`` as its
    observations), its processed_date (the batch stamp) and its scoring
    generation. Either way the claim is closed with the receipt of the
    exact return (``result_payload_sha256``).
    """
    receipt = payload_sha256(member.ret)
    if member.status.startswith("skipped_"):
        result = MergeResult(dict(member.talk), "status_only")
        warnings: list[dict[str, str]] = []
    else:
        result = _merge_analysis(member, ledger, catalog, stamp)
        warnings = [*_date_advisory(member, stamp), *result.warnings]
    talk = result.talk
    talk["status"] = member.status
    talk["_queue_claim"] = tracking.persist_write.complete_claim(
        member.claim,
        released_at=stamp,
        result_status=member.status,
        result_payload_sha256=receipt,
    )
    result.merged.update({"status", "_queue_claim"})
    return Merged(member, talk, _row(member, result, receipt, warnings))


def _merge_analysis(
    member: Member, ledger: Ledger | None, catalog: Catalog, stamp: str
) -> MergeResult:
    observations = ledger.observations if ledger is not None else None
    result = merge_processed(
        member.talk, member.ret, version=member.version, observations=observations
    )
    legacy = result.talk.get("pattern_observations")
    if ledger is not None:
        stamp_metadata(ledger, result.talk)
    elif isinstance(legacy, dict):  # a replay return (v1-v3) persisted as returned
        infer_groups(catalog, legacy)  # only where exactly one group qualifies
    result.talk["processed_date"] = stamp
    result.merged.add("processed_date")
    _generation(result, member, catalog)
    return result


def _date_advisory(member: Member, stamp: str) -> list[dict[str, str]]:
    """A date-only processed_date is advisory: the batch stamp is what is recorded.

    (A timestamp other than the stamp was refused by the gate: ``processed_date_mismatch``.)
    """
    value = member.ret.get("processed_date")
    if not isinstance(value, str):
        return []
    if "T" in value and tracking.persist_write.canonical_timestamp(value) is not None:
        return []
    return [
        {
            "code": "processed_date_advisory",
            "message": f"the return's date-only processed_date {value!r} is advisory; "
            f"the batch stamp {stamp} is recorded",
            "path": f"{member.path}.processed_date",
        }
    ]


def _row(
    member: Member, result: MergeResult, receipt: str, warnings: list[dict[str, str]]
) -> dict[str, Any]:
    """The member's row of the report: what changed, and the scoring it now has."""
    talk = result.talk
    nested = talk.get("pattern_observations")
    current = member.generation["status"] == scoring_generation.CURRENT
    return {
        "cleared_fields": sorted(result.cleared),
        "filename": member.filename,
        "merge_contract": result.contract,
        "merged_fields": sorted(result.merged),
        "opportunity_coverage_identity": nested.get("opportunity_coverage_identity")
        if current and isinstance(nested, dict)
        else None,
        "pattern_score": talk.get("pattern_score")
        if not member.status.startswith("skipped_")
        else None,
        "pattern_scoring_generation": member.generation,
        "result_payload_sha256": receipt,
        "return_schema_version": member.version,
        "status": member.status,
        "talk_schema_version": talk.get("schema_version", 1),
        "warnings": warnings,
    }


def _generation(result: MergeResult, member: Member, catalog: Catalog) -> None:
    """The talk's scoring generation: current (schema 5, fingerprinted) or replay-only."""
    talk = result.talk
    generation = member.generation
    talk["pattern_scoring_generation_status"] = generation["status"]
    talk["pattern_scoring_generation_reasons"] = list(generation["reasons"])
    result.merged.update(
        {"pattern_scoring_generation_status", "pattern_scoring_generation_reasons"}
    )
    if generation["status"] == scoring_generation.CURRENT:
        talk["schema_version"] = CURRENT_TALK_SCHEMA
        talk["pattern_scoring_schema_version"] = CURRENT_SCORING_SCHEMA
        talk["pattern_catalog_fingerprint"] = catalog.fingerprint
        result.merged.update(
            {"schema_version", "pattern_scoring_schema_version", "pattern_catalog_fingerprint"}
        )
        return
    for name in ("pattern_scoring_schema_version", "pattern_catalog_fingerprint"):
        if name in talk:
            del talk[name]  # mutually exclusive with legacy_unbaselineable
            result.merged.add(name)
    if talk.get("schema_version") == CURRENT_TALK_SCHEMA:
        talk["schema_version"] = 4  # only a current v5 result is talk schema 5
        result.merged.add("schema_version")
    result.warnings.append(
        {
            "code": "legacy_unbaselineable",
            "message": "replay-only result: excluded from current baselines ("
            + ", ".join(generation["reasons"])
            + ")",
            "path": member.path,
        }
    )
