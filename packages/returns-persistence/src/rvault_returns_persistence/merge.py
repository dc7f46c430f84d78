"""Step 4 of persist: one validated return applied to its talk record, its claim closed.

Which rules a processed return's analysis is merged by depends on its
version, and only this table says so (:data:`CONTRACTS`, as
:mod:`.checks.protocol` does for validation): v2-v5 share the
complete-snapshot contract of :mod:`.merge_current`, v1 keeps the additive
contract of :mod:`.merge_legacy`; v4/v5 persist their canonical ledger, v2/v3
their observations as returned. ``clear_fields`` runs first
(:mod:`.merge_fields`). A skipped result changes only its status (and,
elsewhere, its lease).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_tracking_db import api as tracking

from rvault_returns_persistence import merge_current, merge_legacy, scoring_generation
from rvault_returns_persistence.canonical_ledger import Ledger
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.merge_fields import (
    MergeResult,
    apply_clear_fields,
    promote,
    record_score,
)
from rvault_returns_persistence.persist_gate import Member

Fields = Callable[[MergeResult, dict[str, Any]], None]
Observations = Callable[[MergeResult, dict[str, Any], Ledger | None], None]
Evidence = Callable[[MergeResult, Ledger | None, Catalog], None]
Recorder = Callable[[MergeResult, Member, Catalog], None]


@dataclass(frozen=True)
class MergeContract:
    """How one return version's processed analysis reaches its talk, step by step."""

    name: str  # the report's merge_contract
    fields: Fields  # the return's content fields (after clear_fields)
    observations: Observations  # its pattern_observations
    evidence: Evidence  # after the merge: what the persisted evidence learns from it


CURRENT = MergeContract(
    "snapshot",
    merge_current.snapshot_fields,
    merge_current.ledger_observations,
    merge_current.stamp_evidence,
)
_V2_V3 = MergeContract(
    "snapshot",
    merge_current.snapshot_fields,
    merge_legacy.observations_as_returned,
    merge_legacy.infer_comparison_groups,
)
CONTRACTS: dict[int, MergeContract] = {
    1: MergeContract(
        "legacy_additive",
        merge_legacy.additive_fields,
        merge_legacy.additive_observations,
        merge_legacy.infer_comparison_groups,
    ),
    2: _V2_V3,
    3: _V2_V3,
    4: CURRENT,
    5: CURRENT,
}
# How the talk records its scoring generation (a skipped return records none).
RECORDERS: dict[str, Recorder] = {
    scoring_generation.CURRENT: merge_current.record_current,
    scoring_generation.LEGACY: merge_legacy.record_replay,
}


def merge_processed(
    talk: dict[str, Any], ret: dict[str, Any], contract: MergeContract, ledger: Ledger | None
) -> MergeResult:
    """The talk after ``clear_fields`` and the return's analysis content (no claim/stamps)."""
    result = MergeResult(copy.deepcopy(talk), contract.name)
    clear = ret.get("clear_fields")
    if isinstance(clear, list):
        result.cleared = apply_clear_fields(result.talk, clear)
    contract.fields(result, ret)
    contract.observations(result, ret, ledger)
    promote(result)
    record_score(result)
    return result


@dataclass(frozen=True)
class Merged:
    """A member's new talk record (its claim closed) and its row of the report."""

    member: Member
    talk: dict[str, Any]
    row: dict[str, Any]


def merge_member(member: Member, ledger: Ledger | None, catalog: Catalog, stamp: str) -> Merged:
    """Step 4 of persist: the return applied to its talk, the claim closed with its receipt.

    A skipped return changes only the status; a processed one its analysis
    (:func:`merge_processed` by its version's contract, with the canonical
    ``ledger`` as its observations where it has one), its processed_date (the
    batch stamp) and its scoring generation. Either way the claim is closed
    with the receipt of the exact return (``result_payload_sha256``).
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
    contract = CONTRACTS[member.version]
    result = merge_processed(member.talk, member.ret, contract, ledger)
    contract.evidence(result, ledger, catalog)
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
    generation = member.generation
    result.talk["pattern_scoring_generation_status"] = generation["status"]
    result.talk["pattern_scoring_generation_reasons"] = list(generation["reasons"])
    result.merged.update(
        {"pattern_scoring_generation_status", "pattern_scoring_generation_reasons"}
    )
    RECORDERS[generation["status"]](result, member, catalog)
