"""Replay merge rules: how returns v1-v4 reach their talk where they differ from v5.

Older returns are still persisted, each by the contract of its own version,
and never enter a current baseline. What differs, by version:

- v1 keeps the historical additive contract (:func:`additive_fields`,
  :func:`additive_observations`): empty values are no-ops (each one a
  ``legacy_empty_value_ignored`` warning at top level), objects merge
  recursively, lists gain new items.
- v1-v3 carry no evidence ledger: v2/v3 observations are persisted as
  returned (:func:`observations_as_returned`), and a ``source_comparison``
  detection that does not name its group gets the one group that qualifies,
  if exactly one does (:func:`infer_comparison_groups`).
- v1-v4 results are replay-only (:func:`record_replay`): no scoring schema
  or catalog fingerprint, talk schema at most 4, a ``legacy_unbaselineable``
  warning naming the reasons.
"""

from __future__ import annotations

import copy
from typing import Any

from rvault_returns_persistence.canonical_ledger import Ledger
from rvault_returns_persistence.catalog import Catalog
from rvault_returns_persistence.legacy_comparison import infer_groups
from rvault_returns_persistence.merge_current import CURRENT_TALK_SCHEMA
from rvault_returns_persistence.merge_fields import (
    TOP_LEVEL_FIELDS,
    MergeResult,
    additive,
    container,
    is_empty,
)
from rvault_returns_persistence.persist_gate import Member

REPLAY_TALK_SCHEMA = 4


def additive_fields(result: MergeResult, ret: dict[str, Any]) -> None:
    """The v1 additive contract of the top-level fields and the two content blocks."""
    talk = result.talk
    for name in (*TOP_LEVEL_FIELDS, "adherence_comparison"):
        if name in ret:
            if is_empty(ret[name]):
                result.warnings.append(
                    {
                        "code": "legacy_empty_value_ignored",
                        "message": f"a v1 return's empty {name} is a no-op (additive contract)",
                        "path": f"$.{name}",
                    }
                )
                continue
            talk[name] = additive(talk.get(name), ret[name])
            result.merged.add(name)
    for block in ("structured_data", "verbatim_examples"):
        incoming = ret.get(block)
        if isinstance(incoming, dict):
            for key, value in incoming.items():
                if is_empty(value):
                    continue
                target = container(talk, block)
                target[key] = additive(target.get(key), value)
                result.merged.add(f"{block}.{key}")


def additive_observations(result: MergeResult, ret: dict[str, Any], ledger: Ledger | None) -> None:
    """v1 observations merge additively into the talk's prior ones."""
    if isinstance(ret.get("pattern_observations"), dict):
        prior = result.talk.get("pattern_observations")
        result.talk["pattern_observations"] = additive(
            prior if isinstance(prior, dict) else {}, ret["pattern_observations"]
        )
        result.merged.add("pattern_observations")


def observations_as_returned(
    result: MergeResult, ret: dict[str, Any], ledger: Ledger | None
) -> None:
    """v2/v3 observations (no receipts, so no ledger) replace the prior ones as returned."""
    if isinstance(ret.get("pattern_observations"), dict):
        result.talk["pattern_observations"] = copy.deepcopy(ret["pattern_observations"])
        result.merged.add("pattern_observations")


def infer_comparison_groups(result: MergeResult, ledger: Ledger | None, catalog: Catalog) -> None:
    """Name the comparison group of an unnamed detection where exactly one qualifies."""
    observations = result.talk.get("pattern_observations")
    if isinstance(observations, dict):
        infer_groups(catalog, observations)


def record_replay(result: MergeResult, member: Member, catalog: Catalog) -> None:
    """A replay-only result: excluded from current baselines, and the warning says why."""
    talk = result.talk
    for name in ("pattern_scoring_schema_version", "pattern_catalog_fingerprint"):
        if name in talk:
            del talk[name]  # mutually exclusive with legacy_unbaselineable
            result.merged.add(name)
    if talk.get("schema_version") == CURRENT_TALK_SCHEMA:
        talk["schema_version"] = REPLAY_TALK_SCHEMA  # only a current v5 result is talk schema 5
        result.merged.add("schema_version")
    result.warnings.append(
        {
            "code": "legacy_unbaselineable",
            "message": "replay-only result: excluded from current baselines ("
            + ", ".join(member.generation["reasons"])
            + ")",
            "path": member.path,
        }
    )
