"""Queue claims v1-v5: deep validation, construction and closing.

A claim is immutable generation evidence. Its version fixes which worker
return it authorizes (v1/v2 -> returns v1/v2, v3 -> v3, v4 -> archival v4,
v5 -> v5) and, from v3 on, carries the frozen adherence baseline. Closing a
claim only *adds* the suffix fields (``released_at``, ``release_reason`` and,
for a completed claim, ``result_status`` and ``result_payload_sha256``),
which are forbidden while it is ``claimed``. :func:`claim_issues` is the deep
validator the owner schema assessment calls for every stored claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.issues import Issue

from rvault_tracking_db.assessment import shapes
from rvault_tracking_db.queue.issues import is_int, is_nonempty_str, jp
from rvault_tracking_db.queue.timestamps import parse_aware

# Versions, states, statuses and per-state field sets are the queue-claim
# schemas' (assessment.shapes); this module keeps the rules that compare fields.
CLAIM = "queue-claim"
CLAIM_VERSIONS = shapes.versions(CLAIM)
CURRENT_CLAIM_VERSION = max(CLAIM_VERSIONS)
CURRENT_RETURN_VERSION = 5

STATE_CLAIMED = "claimed"
STATE_RELEASED = "released"
STATE_COMPLETED = "completed"
STATES = shapes.enum(CLAIM, CURRENT_CLAIM_VERSION, "state")

CLAIMABLE_STATUSES = shapes.enum(CLAIM, CURRENT_CLAIM_VERSION, "previous_status")
INFLIGHT_STATUS = "reprocessing-inflight"
RESULT_STATUSES = shapes.enum(CLAIM, CURRENT_CLAIM_VERSION, "result_status")
RELEASE_REASON_RECOVERED = "recovered"

SUFFIX_FIELDS = ("released_at", "release_reason", "result_status", "result_payload_sha256")
# Which claim version authorizes which return version / carries which baseline version.
RETURN_VERSION = {3: 3, 4: 4, 5: 5}
BASELINE_VERSION = {3: 1, 4: 1, 5: 2}
SCORING_VERSION = {3: 3, 4: 4, 5: 5}


def live_claim(talk: Any) -> Mapping[str, Any] | None:
    """The talk's current claim when it is still held (state ``claimed``).

    Here beside the states rather than with the batch views (``queue.batches``
    re-exports it), so ``rvault-db status`` asks it without importing those.
    """
    if not isinstance(talk, dict):
        return None
    claim = talk.get("_queue_claim")
    if isinstance(claim, dict) and claim.get("state") == STATE_CLAIMED:
        return claim
    return None


def claim_version(claim: Mapping[str, Any]) -> int | None:
    """The claim's version: an explicit exact integer, or 1 for a historical claim without one."""
    if "schema_version" not in claim:
        return 1
    version = claim["schema_version"]
    return version if is_int(version) else None


def is_supported(claim: object) -> bool:
    if not isinstance(claim, dict):
        return False
    version = claim_version(claim)
    return version in CLAIM_VERSIONS


def _state_rule(version: int, state: str) -> dict[str, Any]:
    """The ``then`` the schema applies to a claim in ``state`` (empty when none)."""
    for entry in shapes.schema(CLAIM, version).get("allOf", ()):
        condition = entry.get("if", {}).get("properties", {}).get("state", {})
        if condition.get("const") == state:
            return entry.get("then", {})
    return {}


@lru_cache(maxsize=64)
def allowed_fields(version: int, state: str) -> frozenset[str]:
    """The schema's properties less those it forbids in ``state`` (e.g. the release suffix)."""
    rule = _state_rule(version, state)
    forbidden = {name for alt in rule.get("not", {}).get("anyOf", ()) for name in alt["required"]}
    return shapes.properties(CLAIM, version) - forbidden


@lru_cache(maxsize=64)
def required_fields(version: int, state: str) -> frozenset[str]:
    """The schema's required fields plus those ``state`` requires."""
    rule = _state_rule(version, state)
    return frozenset(shapes.required(CLAIM, version)) | frozenset(rule.get("required", ()))


def claim_issues(claim: object, *, path: str = "$", filename: str | None = None) -> list[Issue]:
    """Every problem with one stored claim (empty list = valid v1-v5 claim).

    ``filename``, when given, additionally requires a v3-v5 baseline to list
    that talk among its excluded filenames (a claim never compares a talk
    with itself). An unknown future version yields only
    ``unsupported_claim_version``: its shape is never interpreted.
    """
    if not isinstance(claim, dict):
        return [Issue("claim_not_object", path, "a queue claim must be an object")]
    version = claim_version(claim)
    if version is None:
        return [
            Issue(
                "invalid_claim_version",
                jp(path, "schema_version"),
                "schema_version must be an integer",
            )
        ]
    if version not in CLAIM_VERSIONS:
        return [
            Issue(
                "unsupported_claim_version",
                jp(path, "schema_version"),
                f"queue claim version {version} is not supported (known: 1-5)",
            )
        ]
    state = claim.get("state")
    if state not in STATES:
        return [
            Issue("invalid_claim_state", jp(path, "state"), f"state must be one of {list(STATES)}")
        ]
    if claim.keys() != allowed_fields(version, state):  # else every field is there
        issues = _field_set_issues(claim, version, state, path)
        if issues:
            return issues
    # Every field of this version and state is present from here on.
    return [
        *_claim_field_issues(claim, path),
        *_release_issues(claim, version, state, path),
        *_return_issues(claim, version, path, filename),
    ]


def _claim_field_issues(claim: Mapping[str, Any], path: str) -> list[Issue]:
    """The fields every claim carries: ids, claim time, prior status, generation."""
    issues: list[Issue] = []
    for name in ("run_id", "batch_id"):
        if not is_nonempty_str(claim[name]):
            issues.append(
                Issue("invalid_type", jp(path, name), f"{name} must be a non-empty string")
            )
    if parse_aware(claim["claimed_at"]) is None:
        issues.append(
            Issue(
                "invalid_timestamp",
                jp(path, "claimed_at"),
                "claimed_at must be a timezone-aware ISO-8601 timestamp",
            )
        )
    if claim["previous_status"] not in CLAIMABLE_STATUSES:
        issues.append(
            Issue(
                "invalid_value",
                jp(path, "previous_status"),
                f"previous_status must be one of {list(CLAIMABLE_STATUSES)}",
            )
        )
    generation = claim["reprocess_generation"]
    if not is_int(generation) or generation < 1:
        issues.append(
            Issue(
                "invalid_type",
                jp(path, "reprocess_generation"),
                "reprocess_generation must be a positive integer",
            )
        )
    return issues


def _release_issues(claim: Mapping[str, Any], version: int, state: str, path: str) -> list[Issue]:
    """A released or completed claim: when and why it ended, and a completed one's result."""
    issues: list[Issue] = []

    def bad(field_name: str, code: str, message: str) -> None:
        issues.append(Issue(code, jp(path, field_name), message))

    if state != STATE_CLAIMED:
        claimed_at = parse_aware(claim["claimed_at"])
        released = parse_aware(claim["released_at"])
        if released is None:
            bad(
                "released_at",
                "invalid_timestamp",
                "released_at must be a timezone-aware ISO-8601 timestamp",
            )
        elif claimed_at is not None and released < claimed_at:
            bad("released_at", "released_before_claimed", "released_at precedes claimed_at")
        if not is_nonempty_str(claim["release_reason"]):
            bad("release_reason", "invalid_type", "release_reason must be a non-empty string")
    if state == STATE_COMPLETED:
        if claim["result_status"] not in RESULT_STATUSES:
            bad(
                "result_status",
                "invalid_value",
                f"result_status must be one of {list(RESULT_STATUSES)}",
            )
        if version >= 2 and not is_sha256_hex(claim["result_payload_sha256"]):
            bad("result_payload_sha256", "invalid_digest", "must be 64 lowercase hex characters")
    return issues


def _return_issues(
    claim: Mapping[str, Any], version: int, path: str, filename: str | None
) -> list[Issue]:
    """v3-v5: the return schema the claim requires and its adherence baseline."""
    if version < 3:
        return []
    issues: list[Issue] = []
    expected_return = RETURN_VERSION[version]
    required_return = claim["required_return_schema_version"]
    if not is_int(required_return) or required_return != expected_return:
        issues.append(
            Issue(
                "return_version_mismatch",
                jp(path, "required_return_schema_version"),
                f"claim v{version} requires return schema {expected_return}",
            )
        )
    # Imported here: only a stored v3+ claim carries a baseline; ``status`` of a vault
    # without one (and ``live_claim``'s callers) never load the baseline rules.
    from rvault_tracking_db.queue.baseline import baseline_issues

    baseline = claim["adherence_baseline"]
    nested = baseline_issues(baseline, path=jp(path, "adherence_baseline"))
    issues.extend(nested)
    if not nested and isinstance(baseline, dict):
        issues.extend(_baseline_binding_issues(claim, baseline, version, path, filename))
    return issues


def _field_set_issues(claim: Mapping[str, Any], version: int, state: str, path: str) -> list[Issue]:
    issues: list[Issue] = []
    present = set(claim)
    for key in sorted(present - allowed_fields(version, state)):
        code = (
            "suffix_field_while_claimed"
            if key in SUFFIX_FIELDS and state == STATE_CLAIMED
            else "unknown_field"
        )
        issues.append(
            Issue(code, jp(path, key), f"{key} is not allowed on a {state} v{version} claim")
        )
    for key in sorted(required_fields(version, state) - present):
        issues.append(
            Issue("missing_field", jp(path, key), f"a {state} v{version} claim requires {key}")
        )
    return issues


def _baseline_binding_issues(
    claim: Mapping[str, Any],
    baseline: Mapping[str, Any],
    version: int,
    path: str,
    filename: str | None,
) -> list[Issue]:
    issues: list[Issue] = []
    bpath = jp(path, "adherence_baseline")
    if baseline["schema_version"] != BASELINE_VERSION[version]:
        issues.append(
            Issue(
                "baseline_version_mismatch",
                jp(bpath, "schema_version"),
                f"claim v{version} carries adherence baseline v{BASELINE_VERSION[version]}",
            )
        )
    if baseline["pattern_scoring_schema_version"] != SCORING_VERSION[version]:
        issues.append(
            Issue(
                "scoring_version_mismatch",
                jp(bpath, "pattern_scoring_schema_version"),
                f"claim v{version} freezes scoring schema {SCORING_VERSION[version]}",
            )
        )
    if baseline["as_of"] != claim["claimed_at"]:
        issues.append(
            Issue(
                "baseline_as_of_mismatch", jp(bpath, "as_of"), "as_of must equal claimed_at exactly"
            )
        )
    if baseline["active_batch_excluded"] is not True:
        issues.append(
            Issue(
                "batch_not_excluded",
                jp(bpath, "active_batch_excluded"),
                "a claim baseline excludes its batch",
            )
        )
    if filename is not None and filename not in baseline["excluded_filenames"]:
        issues.append(
            Issue(
                "member_not_excluded",
                jp(bpath, "excluded_filenames"),
                f"{filename} is missing from the exclusion",
            )
        )
    return issues


def build_claim(
    *,
    run_id: str,
    batch_id: str,
    claimed_at: str,
    previous_status: str,
    reprocess_generation: int,
    baseline: Mapping[str, Any],
) -> dict[str, Any]:
    """A fresh schema-v5 claim carrying its own copy of the batch baseline."""
    return {
        "schema_version": CURRENT_CLAIM_VERSION,
        "run_id": run_id,
        "batch_id": batch_id,
        "claimed_at": claimed_at,
        "previous_status": previous_status,
        "reprocess_generation": reprocess_generation,
        "required_return_schema_version": CURRENT_RETURN_VERSION,
        "adherence_baseline": _deep_copy(baseline),
        "state": STATE_CLAIMED,
    }


def release_claim(claim: Mapping[str, Any], *, released_at: str, reason: str) -> dict[str, Any]:
    """Close a live claim without rewriting its snapshot: only the release suffix is added.

    The one allowed version transition: a historical v1 receipt is advanced to
    v2 while its release fields are added (spec, migration section).
    """
    closed = _deep_copy(claim)
    if claim_version(claim) == 1:
        closed["schema_version"] = 2
    closed["state"] = STATE_RELEASED
    closed["released_at"] = released_at
    closed["release_reason"] = reason
    return closed


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value
