"""The current scoring generation and its post-batch, full-cohort baseline.

A goal is judged only against talks scored the way its baseline was scored.
The current generation is the catalog fingerprint and scoring schema of the
most recently processed current talk (a new catalog release starts a new
generation with its first batch); its baseline is the spec's all-inclusive
post-batch baseline v2 (``active_batch_excluded: false``,
``excluded_filenames: []``) over that generation's eligible talks, the one a
goal's ``pattern_baseline`` freezes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rvault_contracts.canonical import is_sha256_hex

from rvault_tracking_db.queue.baseline import ELIGIBLE_STATUSES, build_baseline, current_cohort
from rvault_tracking_db.queue.issues import is_int

Cohort = list[tuple[Mapping[str, Any], Mapping[str, Any]]]


@dataclass(frozen=True)
class Generation:
    fingerprint: str
    scoring_schema: int
    baseline: dict[str, Any]
    cohort: Cohort


def _stamped(talk: Mapping[str, Any]) -> bool:
    return (
        talk.get("status") in ELIGIBLE_STATUSES
        and talk.get("pattern_scoring_generation_status") == "current"
        and is_sha256_hex(talk.get("pattern_catalog_fingerprint"))
        and is_int(talk.get("pattern_scoring_schema_version"))
        and isinstance(talk.get("processed_date"), str)
    )


def current_generation(talks: Sequence[Any]) -> Generation | None:
    """The generation of the latest processed current talk, or ``None`` before any."""
    stamped = [t for t in talks if isinstance(t, dict) and _stamped(t)]
    if not stamped:
        return None
    latest = max(stamped, key=lambda t: (t["processed_date"], str(t.get("filename"))))
    fingerprint = latest["pattern_catalog_fingerprint"]
    schema = latest["pattern_scoring_schema_version"]
    result = build_baseline(
        talks,
        batch_filenames=[],
        as_of=latest["processed_date"],
        catalog_fingerprint=fingerprint,
        scoring_schema_version=schema,
    )
    baseline = {**result.baseline, "active_batch_excluded": False, "excluded_filenames": []}
    return Generation(fingerprint, schema, baseline, current_cohort(talks, fingerprint, schema))
