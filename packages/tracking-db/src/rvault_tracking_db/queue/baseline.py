"""Adherence baselines: the immutable numeric snapshot a claim is compared against.

The baseline is computed once per batch, before any talk is mutated, from the
talks that were eligible at claim time. The rules (spec, "Queue eligibility"
through "The four version axes"):

* exclusion comes first: every batch member is dropped before its status,
  generation identity or score is looked at, so no talk compares with itself;
* only talks with an eligible status, stamped ``current`` with empty reasons,
  the baseline's exact catalog fingerprint and scoring schema, and agreeing
  promoted/nested pattern scores count toward ``eligible_talk_count``;
* the raw-score cohort is the exact opportunity-identity cohort: mixed
  identities, an empty cohort, or a cohort without a single detected or
  undetected outcome publish zero/null aggregates with an explicit reason;
* count and sum are integers; the average is ``sum / count`` rounded with
  decimal ROUND_HALF_EVEN to two places.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment import shapes
from rvault_tracking_db.assessment.ledger import ledger_conforms
from rvault_tracking_db.queue.issues import is_int, is_nonempty_str, is_number, jp
from rvault_tracking_db.queue.timestamps import parse_aware

BASELINE_VERSIONS = (1, 2)
CURRENT_BASELINE_VERSION = 2
CURRENT_SCORING_SCHEMA = 5
ELIGIBLE_STATUSES = ("processed", "processed_partial")
SCOPE = "global"

REASON_MIXED = "mixed_opportunity_coverage"
REASON_NO_EVALUABLE = "no_evaluable_pattern_opportunities"
REASON_EMPTY = "no_eligible_talks"
UNAVAILABLE_REASONS = (REASON_EMPTY, REASON_MIXED, REASON_NO_EVALUABLE)
EVALUABLE_OUTCOMES = frozenset({"detected", "undetected"})

# Every baseline field is required and the set is closed: the schemas' properties.
FIELDS = {
    version: shapes.properties("adherence-baseline", version)
    for version in shapes.versions("adherence-baseline")
}


@lru_cache(maxsize=4096)  # a batch's members all carry the same aggregates
def average(total: int, count: int) -> float | None:
    """``total / count`` with decimal ROUND_HALF_EVEN to two places; ``None`` for no talks."""
    if count <= 0:
        return None
    quantized = (Decimal(total) / Decimal(count)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_EVEN
    )
    return float(quantized)


def _nested_score(observations: Mapping[str, Any]) -> Any:
    nested = observations.get("pattern_score")
    if isinstance(nested, dict):
        return nested.get("score")
    return nested


@dataclass(frozen=True)
class Exclusion:
    filename: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"filename": self.filename, "reason": self.reason}


@dataclass(frozen=True)
class BaselineResult:
    baseline: dict[str, Any]
    exclusions: tuple[Exclusion, ...]


def _eligibility(
    talk: Mapping[str, Any], fingerprint: str, scoring_schema: int
) -> tuple[str | None, Mapping[str, Any] | None]:
    """``(None, observations)`` when the talk counts, else ``(reason, None)`` when it
    looked current but cannot be trusted (reported), or ``("", None)`` when it is
    simply not part of the current generation (silently skipped)."""
    early = _before_fingerprint(talk)
    if early is not None:
        return early, None
    if talk.get("pattern_catalog_fingerprint") != fingerprint:
        return "", None
    return _after_fingerprint(talk, scoring_schema)


def _before_fingerprint(talk: Mapping[str, Any]) -> str | None:
    """The checks before the catalog fingerprint's: their reason, or None to go on."""
    if talk.get("status") not in ELIGIBLE_STATUSES:
        return ""
    if talk.get("pattern_scoring_generation_status") != "current":
        return ""
    reasons = talk.get("pattern_scoring_generation_reasons")
    if not isinstance(reasons, list) or reasons:
        return "current_with_reasons"
    return None


def _after_fingerprint(
    talk: Mapping[str, Any], scoring_schema: int
) -> tuple[str | None, Mapping[str, Any] | None]:
    """The checks after the catalog fingerprint matched (see :func:`_eligibility`)."""
    version = talk.get("pattern_scoring_schema_version")
    if not is_int(version) or version != scoring_schema:
        return "", None
    observations = talk.get("pattern_observations")
    if not isinstance(observations, dict):
        return "missing_pattern_observations", None
    promoted = talk.get("pattern_score")
    nested = _nested_score(observations)
    if not is_int(promoted) or not is_int(nested) or promoted != nested:
        return "pattern_score_disagreement", None
    if not is_sha256_hex(observations.get("opportunity_coverage_identity")):
        return "missing_opportunity_coverage_identity", None
    if not ledger_conforms(observations, observations.get("evidence_schema_version")):
        return "pattern_observations_invalid", None  # one talk's trouble: left out, reported
    return None, observations


@dataclass(frozen=True, slots=True)
class Standing:
    """One talk's part of a baseline, whatever catalog fingerprint the baseline names.

    What :func:`build_baseline` reads of a talk, kept without the talk, so a
    reader that streams the talks (``queue claim``) decides the fingerprint
    and the batch after the last one. ``reason`` is :func:`_eligibility`'s
    for a matching fingerprint; ``early`` when it was decided before the
    fingerprint is compared (then it holds for any fingerprint).
    """

    filename: str
    fingerprint: Any
    reason: str | None
    early: bool = False
    score: int = 0
    identity: str = ""
    evaluable: bool = False

    def reason_for(self, fingerprint: str) -> str | None:
        """:func:`_eligibility`'s reason for a baseline naming ``fingerprint``."""
        if self.early:
            return self.reason
        if self.fingerprint != fingerprint:
            return ""
        return self.reason


def standing(talk: Mapping[str, Any], scoring_schema: int = CURRENT_SCORING_SCHEMA) -> Standing:
    """``talk``'s :class:`Standing` (the same checks, split where the fingerprint comes)."""
    filename = str(talk.get("filename"))
    fingerprint = talk.get("pattern_catalog_fingerprint")
    early = _before_fingerprint(talk)
    if early is not None:
        return Standing(filename, fingerprint, early, early=True)
    reason, observations = _after_fingerprint(talk, scoring_schema)
    if reason is not None or observations is None:
        return Standing(filename, fingerprint, reason)
    evaluable = any(
        isinstance(row, dict) and row.get("outcome") in EVALUABLE_OUTCOMES
        for row in (observations.get("pattern_outcomes") or [])
    )
    identity = observations["opportunity_coverage_identity"]
    return Standing(
        filename, fingerprint, None, False, int(talk["pattern_score"]), identity, evaluable
    )


def current_cohort(
    talks: Iterable[Mapping[str, Any]], fingerprint: str, scoring_schema: int
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """``(talk, pattern_observations)`` of every talk a baseline of this generation counts.

    The same eligibility the baseline applies, for readers that need the talks
    themselves (improvement-goal metrics), so the two can never disagree.
    """
    cohort = []
    for talk in talks:
        reason, observations = _eligibility(talk, fingerprint, scoring_schema)
        if reason is None and observations is not None:
            cohort.append((talk, observations))
    return cohort


def build_baseline(
    talks: Iterable[Mapping[str, Any]],
    *,
    batch_filenames: Sequence[str],
    as_of: str,
    catalog_fingerprint: str,
    scoring_schema_version: int = CURRENT_SCORING_SCHEMA,
) -> BaselineResult:
    """The schema-v2 pre-claim baseline for one batch (pure; reads only ``talks``)."""
    excluded_set = frozenset(batch_filenames)
    return baseline_of(
        (
            standing(talk, scoring_schema_version)
            for talk in talks
            # exclusion happens before anything else is inspected
            if talk.get("filename") not in excluded_set
        ),
        batch_filenames=batch_filenames,
        as_of=as_of,
        catalog_fingerprint=catalog_fingerprint,
        scoring_schema_version=scoring_schema_version,
    )


def baseline_of(
    standings: Iterable[Standing],
    *,
    batch_filenames: Sequence[str],
    as_of: str,
    catalog_fingerprint: str,
    scoring_schema_version: int = CURRENT_SCORING_SCHEMA,
) -> BaselineResult:
    """:func:`build_baseline` on the talks' standings, the batch already left out."""
    excluded = sorted(set(batch_filenames))
    cohort: list[Standing] = []
    exclusions: list[Exclusion] = []
    for talk in standings:
        reason = talk.reason_for(catalog_fingerprint)
        if reason is None:
            cohort.append(talk)
        elif reason:
            exclusions.append(Exclusion(talk.filename, reason))
    identities = {talk.identity for talk in cohort}
    identity: str | None = None
    status = "unavailable"
    reason_code: str | None
    scored = 0
    total = 0
    if not cohort:
        reason_code = REASON_EMPTY
    elif len(identities) > 1:
        reason_code = REASON_MIXED
    else:
        identity = next(iter(identities))
        if any(talk.evaluable for talk in cohort):
            status, reason_code = "available", None
            scored = len(cohort)
            total = sum(talk.score for talk in cohort)
        else:
            reason_code = REASON_NO_EVALUABLE
    baseline = {
        "schema_version": CURRENT_BASELINE_VERSION,
        "as_of": as_of,
        "scope": SCOPE,
        "active_batch_excluded": True,
        "excluded_filenames": excluded,
        "eligible_statuses": list(ELIGIBLE_STATUSES),
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_catalog_fingerprint": catalog_fingerprint,
        "pattern_scoring_schema_version": scoring_schema_version,
        "eligible_talk_count": len(cohort),
        "opportunity_coverage_identity": identity,
        "raw_score_comparison_status": status,
        "raw_score_comparison_reason": reason_code,
        "scored_talk_count": scored,
        "pattern_score_sum": total,
        "average_pattern_score": average(total, scored) if status == "available" else None,
    }
    return BaselineResult(baseline, tuple(exclusions))


def baseline_issues(baseline: object, *, path: str = "$") -> list[Issue]:
    """Deep validation of an adherence baseline v1 or v2 (shape and arithmetic)."""
    if not isinstance(baseline, dict):
        return [Issue("baseline_not_object", path, "adherence_baseline must be an object")]
    version = baseline.get("schema_version")
    if not is_int(version) or version not in BASELINE_VERSIONS:
        code = "unsupported_baseline_version" if is_int(version) else "invalid_baseline_version"
        return [
            Issue(
                code,
                jp(path, "schema_version"),
                f"adherence baseline version {version!r} is not supported",
            )
        ]
    allowed = FIELDS[version]
    if baseline.keys() != allowed:
        return _field_set_issues(baseline, allowed, version, path)
    return _value_issues(baseline, version, path)


def _field_set_issues(
    baseline: Mapping[str, Any], allowed: frozenset[str], version: int, path: str
) -> list[Issue]:
    issues: list[Issue] = []
    for key in sorted(set(baseline) - allowed):
        issues.append(
            Issue("unknown_field", jp(path, key), f"{key} is not a baseline v{version} field")
        )
    for key in sorted(allowed - set(baseline)):
        issues.append(Issue("missing_field", jp(path, key), f"baseline v{version} requires {key}"))
    return issues


@dataclass
class _Findings:
    """The issues of one baseline, each named by its field under ``path``."""

    path: str
    issues: list[Issue] = field(default_factory=list)

    def bad(self, field_name: str, code: str, message: str) -> None:
        self.issues.append(Issue(code, jp(self.path, field_name), message))


#: Fields whose value every baseline fixes, in reporting order, with the message.
_FIXED_VALUES = (
    (
        "eligible_statuses",
        list(ELIGIBLE_STATUSES),
        "eligible_statuses must be [processed, processed_partial]",
    ),
    ("pattern_scoring_generation_status", "current", "a baseline describes the current generation"),
    ("pattern_scoring_generation_reasons", [], "a current baseline has no reasons"),
)


def _value_issues(baseline: Mapping[str, Any], version: int, path: str) -> list[Issue]:
    """Field values first; the aggregate arithmetic only once every value is well typed."""
    found = _Findings(path)
    if parse_aware(baseline["as_of"]) is None:
        found.bad("as_of", "invalid_timestamp", "as_of must be a timezone-aware ISO-8601 timestamp")
    if baseline["scope"] != SCOPE:
        found.bad("scope", "invalid_value", "scope must be 'global'")
    _exclusion_issues(baseline, found)
    for field_name, expected, message in _FIXED_VALUES:
        if baseline[field_name] != expected:
            found.bad(field_name, "invalid_value", message)
    _generation_issues(baseline, version, found)
    _count_type_issues(baseline, found)
    if found.issues:
        return found.issues
    if version == 1:
        _v1_aggregate_issues(baseline, found)
    else:
        _v2_aggregate_issues(baseline, found)
    return found.issues


def _exclusion_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """The active-batch flag agrees with a sorted, unique list of excluded filenames."""
    excluded_flag = baseline["active_batch_excluded"]
    excluded = baseline["excluded_filenames"]
    if not isinstance(excluded_flag, bool):
        found.bad(
            "active_batch_excluded", "invalid_type", "active_batch_excluded must be a boolean"
        )
    if not isinstance(excluded, list) or not all(is_nonempty_str(x) for x in excluded):
        found.bad(
            "excluded_filenames", "invalid_type", "excluded_filenames must be a list of filenames"
        )
    elif excluded != sorted(set(excluded)):
        found.bad(
            "excluded_filenames",
            "not_sorted_unique",
            "excluded_filenames must be sorted and unique",
        )
    elif excluded_flag is True and not excluded:
        found.bad(
            "excluded_filenames", "empty_exclusion", "an active-batch baseline excludes its batch"
        )
    elif excluded_flag is False and excluded:
        found.bad(
            "excluded_filenames",
            "unexpected_exclusion",
            "an all-inclusive baseline excludes nothing",
        )


def _generation_issues(baseline: Mapping[str, Any], version: int, found: _Findings) -> None:
    """The catalog fingerprint and the scoring schema the baseline's version carries."""
    if not is_sha256_hex(baseline["pattern_catalog_fingerprint"]):
        found.bad(
            "pattern_catalog_fingerprint", "invalid_digest", "must be 64 lowercase hex characters"
        )
    scoring = baseline["pattern_scoring_schema_version"]
    if not is_int(scoring) or scoring < 1:
        found.bad("pattern_scoring_schema_version", "invalid_type", "must be a positive integer")
    elif version == 2 and scoring != CURRENT_SCORING_SCHEMA:
        found.bad(
            "pattern_scoring_schema_version",
            "invalid_value",
            "baseline v2 carries scoring schema 5",
        )
    elif version == 1 and scoring >= CURRENT_SCORING_SCHEMA:
        found.bad(
            "pattern_scoring_schema_version",
            "invalid_value",
            "baseline v1 predates scoring schema 5",
        )


def _count_type_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """The count, the sum and the average have the types their arithmetic needs."""
    eligible = baseline["eligible_talk_count"]
    avg = baseline["average_pattern_score"]
    if not is_int(eligible) or eligible < 0:
        found.bad("eligible_talk_count", "invalid_type", "must be a non-negative integer")
    if not is_int(baseline["pattern_score_sum"]):
        found.bad("pattern_score_sum", "invalid_type", "must be an integer")
    if avg is not None and not is_number(avg):
        found.bad("average_pattern_score", "invalid_type", "must be a number or null")


def _average_issues(baseline: Mapping[str, Any], count: int, found: _Findings) -> None:
    """The stored average is the sum over ``count`` talks (v1: eligible, v2: scored)."""
    expected = average(baseline["pattern_score_sum"], count)
    if not _same_average(baseline["average_pattern_score"], expected):
        found.bad("average_pattern_score", "aggregate_mismatch", f"expected {expected!r}")


def _v1_aggregate_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """v1 averages over every eligible talk; an empty cohort sums to zero."""
    eligible = baseline["eligible_talk_count"]
    if eligible == 0 and baseline["pattern_score_sum"] != 0:
        found.bad("pattern_score_sum", "aggregate_mismatch", "an empty cohort sums to 0")
    _average_issues(baseline, eligible, found)


def _same_average(actual: object, expected: float | None) -> bool:
    """Numeric equality of a stored average (int or float) with the expected one.

    Python compares int and float exactly, and two floats are equal exactly
    when their shortest reprs denote the same decimal, so this is the
    decimal comparison of the written values without building Decimals.
    """
    if expected is None or actual is None:
        return actual is None and expected is None
    return actual == expected


def _v2_aggregate_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """v2 states whether the raw-score comparison is available, and the aggregates follow."""
    identity = baseline["opportunity_coverage_identity"]
    scored = baseline["scored_talk_count"]
    eligible = baseline["eligible_talk_count"]
    if identity is not None and not is_sha256_hex(identity):
        found.bad(
            "opportunity_coverage_identity", "invalid_digest", "must be 64 lowercase hex or null"
        )
    if not is_int(scored) or scored < 0 or (is_int(eligible) and scored > eligible):
        found.bad(
            "scored_talk_count",
            "invalid_value",
            "must be an integer between 0 and eligible_talk_count",
        )
        return
    status = baseline["raw_score_comparison_status"]
    if status == "available":
        _available_issues(baseline, found)
    elif status == "unavailable":
        _unavailable_issues(baseline, found)
    else:
        found.bad(
            "raw_score_comparison_status",
            "invalid_value",
            "status must be available or unavailable",
        )


def _available_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """An available comparison names its identity and averages over its scored talks."""
    if baseline["raw_score_comparison_reason"] is not None:
        found.bad(
            "raw_score_comparison_reason",
            "invalid_value",
            "an available comparison has no reason",
        )
    if baseline["opportunity_coverage_identity"] is None:
        found.bad(
            "opportunity_coverage_identity",
            "invalid_value",
            "an available comparison names its identity",
        )
    scored = baseline["scored_talk_count"]
    if scored < 1:
        found.bad(
            "scored_talk_count",
            "aggregate_mismatch",
            "an available comparison has scored talks",
        )
    else:
        _average_issues(baseline, scored, found)


def _unavailable_issues(baseline: Mapping[str, Any], found: _Findings) -> None:
    """An unavailable comparison has a known reason, zero/null aggregates, and a cohort
    that fits the reason."""
    reason = baseline["raw_score_comparison_reason"]
    eligible = baseline["eligible_talk_count"]
    if reason not in UNAVAILABLE_REASONS:
        found.bad(
            "raw_score_comparison_reason",
            "invalid_value",
            f"reason must be one of {list(UNAVAILABLE_REASONS)}",
        )
    scored = baseline["scored_talk_count"]
    total = baseline["pattern_score_sum"]
    if scored != 0 or total != 0 or baseline["average_pattern_score"] is not None:
        found.bad(
            "pattern_score_sum",
            "aggregate_mismatch",
            "an unavailable comparison has zero/null aggregates",
        )
    if reason == REASON_MIXED and baseline["opportunity_coverage_identity"] is not None:
        found.bad(
            "opportunity_coverage_identity",
            "invalid_value",
            "mixed coverage has no single identity",
        )
    if reason == REASON_EMPTY and eligible != 0:
        found.bad(
            "raw_score_comparison_reason",
            "invalid_value",
            "no_eligible_talks needs an empty cohort",
        )
    if reason in (REASON_MIXED, REASON_NO_EVALUABLE) and eligible == 0:
        found.bad(
            "raw_score_comparison_reason", "invalid_value", f"{reason} needs a non-empty cohort"
        )
