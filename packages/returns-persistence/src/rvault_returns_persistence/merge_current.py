"""The current merge rules: the complete-snapshot contract and the evidence ledger.

Return versions 2-5 share the complete-snapshot contract
(:func:`snapshot_fields`): a supplied declared scalar or list replaces the
prior value (an empty value is a real snapshot), each registered structured
object and each verbatim lane is replaced whole so no child of an older run
survives, the image-source distribution and its basis move as one group,
``structured_data.extensions`` is the only recursively additive place, and an
omitted field is untouched. A receipted return (v4, v5) persists its
canonical ledger as its observations and stamps the metadata its citations
name once the return is applied; a current result (v5) records the current
scoring generation. The replay rules live in :mod:`.merge_legacy`; the
table in :mod:`.merge` says which rules each version uses.
"""

from __future__ import annotations

import copy
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_returns_persistence.canonical_ledger import Ledger, stamp_metadata
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.merge_fields import (
    TOP_LEVEL_FIELDS,
    MergeResult,
    additive,
    container,
)
from rvault_returns_persistence.persist_gate import Member
from rvault_returns_persistence.vocabulary import VERBATIM_LANES

IMAGE_GROUP = ("image_source_distribution", "image_source_distribution_basis")
CURRENT_TALK_SCHEMA = 5
CURRENT_SCORING_SCHEMA = 5


def snapshot_fields(result: MergeResult, ret: dict[str, Any]) -> None:
    """The complete-snapshot contract of v2-v5 (the module docstring says it field by field)."""
    _top_level(result, ret)
    incoming = ret.get("structured_data")
    if isinstance(incoming, dict) and incoming:
        _structured(result, incoming)
    lanes = ret.get("verbatim_examples")
    if isinstance(lanes, dict) and lanes:
        verbatim = container(result.talk, "verbatim_examples")
        for lane, value in lanes.items():
            verbatim[lane] = copy.deepcopy(value)
            result.merged.add(f"verbatim_examples.{lane}")
    _refuse_stale_lanes(result.talk)


def _top_level(result: MergeResult, ret: dict[str, Any]) -> None:
    """Declared top-level fields replace; a comparison the return omits is a stale one."""
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


def _structured(result: MergeResult, incoming: dict[str, Any]) -> None:
    """Each structured object replaced whole; extensions additive; the image group as one."""
    structured = container(result.talk, "structured_data")
    for key, value in incoming.items():
        if key == "extensions":
            structured[key] = additive(structured.get(key, {}), value)
        elif key in IMAGE_GROUP:
            for member in IMAGE_GROUP:  # one dependent group
                if member in incoming:
                    structured[member] = copy.deepcopy(incoming[member])
                else:
                    structured.pop(member, None)
        else:
            structured[key] = copy.deepcopy(value)
        result.merged.add(f"structured_data.{key}")


def _refuse_stale_lanes(talk: dict[str, Any]) -> None:
    """A snapshot may not leave lanes behind that the current contract no longer declares."""
    stale = sorted(set(talk.get("verbatim_examples") or {}) - set(VERBATIM_LANES))
    if isinstance(talk.get("verbatim_examples"), dict) and stale:
        raise Refusal(
            "verbatim_lane_stale",
            f"the effective verbatim_examples would keep undeclared lanes {stale}",
            "$.verbatim_examples",
            hint="add " + ", ".join(f"verbatim_examples.{s}" for s in stale) + " to clear_fields",
        )


def ledger_observations(result: MergeResult, ret: dict[str, Any], ledger: Ledger | None) -> None:
    """A receipted return (v4, v5) persists its canonical ledger, never what it returned."""
    assert ledger is not None  # canonicalize builds one for every processed v4/v5 member
    result.talk["pattern_observations"] = ledger.observations
    result.merged.add("pattern_observations")


def stamp_evidence(result: MergeResult, ledger: Ledger | None, catalog: Catalog) -> None:
    """The ledger's metadata citations name the owner value the applied return left."""
    assert ledger is not None  # canonicalize builds one for every processed v4/v5 member
    stamp_metadata(ledger, result.talk)


def record_current(result: MergeResult, member: Member, catalog: Catalog) -> None:
    """A current result: talk schema 5, fingerprinted by the catalog that scored it."""
    talk = result.talk
    talk["schema_version"] = CURRENT_TALK_SCHEMA
    talk["pattern_scoring_schema_version"] = CURRENT_SCORING_SCHEMA
    talk["pattern_catalog_fingerprint"] = catalog.fingerprint
    result.merged.update(
        {"schema_version", "pattern_scoring_schema_version", "pattern_catalog_fingerprint"}
    )
