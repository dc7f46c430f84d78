"""QR, resource, thumbnail, confirmed-intent, improvement-goal and
source-rejection records.

These records are closed: every field the owner knows is listed, so an
unknown key (for instance ``artifacts`` on a QR v1 record) is refused rather
than silently carried under an identity that does not describe it.
"""

from __future__ import annotations

import re
from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import checks, shapes
from rvault_tracking_db.assessment.model import child, is_int, json_type

QR = "db-qr-code"
QR_VERSIONS = shapes.versions(QR)
QR_SHORTENERS = shapes.enum(QR, 2, "shortener")
QR_PATH_ROOTS = shapes.enum(QR, 2, "artifacts", "items", "path_root")
BG_HEX_RE = re.compile(r"^[0-9a-f]{6}$")
DIMENSIONS_RE = re.compile(r"^[1-9][0-9]*x[1-9][0-9]*$")

_QR_V1_FIELDS = shapes.optional(QR, 1)  # every v1 field but talk_slug (the only required one)


def assess_qr(record: Any, path: str, issues: Collector, *, missing_version: int | None) -> None:
    version = checks.record_version(
        record, path, QR_VERSIONS, issues, missing=missing_version, what="qr_codes record"
    )
    if version is None:
        return
    if version == 1:
        checks.closed_fields(
            record,
            path,
            issues,
            required=shapes.required(QR, 1),
            optional=_QR_V1_FIELDS,
            what="qr_codes v1",
        )
    else:
        checks.closed_fields(
            record,
            path,
            issues,
            required=shapes.required(QR, 2),
            what="qr_codes v2",
        )
    checks.check_nonempty_string(record, "talk_slug", path, issues)
    checks.check_nonempty_string(record, "target_url", path, issues)
    checks.check_enum(record, "shortener", path, issues, QR_SHORTENERS)
    for key in shapes.typed(QR, version, "string", "null"):
        checks.check_type(record, key, path, issues, ("string", "null"))
    checks.check_nonempty_string(record, "qr_png_rel_path", path, issues)
    for key in ("created_at", "updated_at"):
        checks.check_type(record, key, path, issues, ("string",))
    if version == 2 and "artifacts" in record:
        _assess_qr_artifacts(record, path, issues)


def _assess_qr_artifacts(record: dict[str, Any], path: str, issues: Collector) -> None:
    artifacts = record["artifacts"]
    apath = child(path, "artifacts")
    if not isinstance(artifacts, list) or not artifacts:
        issues.add(checks.INVALID_VALUE, apath, "artifacts must be a non-empty array")
        return
    for index, artifact in enumerate(artifacts):
        ipath = child(apath, index)
        if not checks.require_object(artifact, ipath, issues, "QR artifact"):
            continue
        checks.closed_fields(
            artifact,
            ipath,
            issues,
            required=shapes.required(QR, 2, "properties", "artifacts", "items"),
            what="QR artifact",
        )
        checks.check_nonempty_string(artifact, "path", ipath, issues)
        checks.check_enum(artifact, "path_root", ipath, issues, QR_PATH_ROOTS)
        sha = artifact.get("sha256")
        if "sha256" in artifact and not is_sha256_hex(sha):
            issues.add(
                checks.INVALID_VALUE, child(ipath, "sha256"), "sha256 must be 64 lowercase hex"
            )
        bg = artifact.get("bg_hex")
        if bg is not None and not (isinstance(bg, str) and BG_HEX_RE.fullmatch(bg)):
            issues.add(
                checks.INVALID_VALUE,
                child(ipath, "bg_hex"),
                "bg_hex must be 6 lowercase hex or null",
            )
    first = artifacts[0]
    if (
        isinstance(first, dict)
        and isinstance(first.get("path"), str)
        and isinstance(record.get("qr_png_rel_path"), str)
        and record["qr_png_rel_path"] != first["path"]
    ):
        issues.add(
            "qr_png_rel_path_mismatch",
            child(path, "qr_png_rel_path"),
            "qr_png_rel_path must mirror artifacts[0].path",
        )


def assess_resource(
    record: Any, path: str, issues: Collector, *, missing_version: int | None
) -> None:
    if not checks.closed_v1_record(
        record,
        path,
        issues,
        missing=missing_version,
        name="resources",
        required=shapes.required("db-resource", 1),
    ):
        return
    checks.check_nonempty_string(record, "talk_slug", path, issues)
    checks.check_count(record, "item_count", path, issues)
    breakdown = record.get("category_breakdown")
    bpath = child(path, "category_breakdown")
    if "category_breakdown" in record:
        if not isinstance(breakdown, dict):
            issues.add(checks.WRONG_TYPE, bpath, "category_breakdown must be an object")
        else:
            for key, count in breakdown.items():
                if not is_int(count) or count < 0:
                    issues.add(
                        checks.INVALID_VALUE,
                        child(bpath, key),
                        "category counts are non-negative integers",
                    )


def resource_sum_problem(record: dict[str, Any]) -> str | None:
    """The writer rule: complete category counts sum to item_count."""
    breakdown = record.get("category_breakdown")
    if not isinstance(breakdown, dict):
        return None
    total = sum(v for v in breakdown.values() if is_int(v))
    if total != record.get("item_count"):
        return f"category counts sum to {total}, not item_count {record.get('item_count')!r}"
    return None


_THUMBNAIL_OPTIONAL = shapes.optional("db-thumbnail", 1)


def assess_thumbnail(
    record: Any, path: str, issues: Collector, *, missing_version: int | None
) -> None:
    if not checks.closed_v1_record(
        record,
        path,
        issues,
        missing=missing_version,
        name="thumbnails",
        required=shapes.required("db-thumbnail", 1),
        optional=_THUMBNAIL_OPTIONAL,
    ):
        return
    checks.check_nonempty_string(record, "talk_slug", path, issues)
    for key in shapes.typed("db-thumbnail", 1, "string", "null"):
        checks.check_type(record, key, path, issues, ("string", "null"))
    checks.check_count(record, "source_slide_num", path, issues, nullable=True)
    dims = record.get("dimensions")
    if dims is not None and not (isinstance(dims, str) and DIMENSIONS_RE.fullmatch(dims)):
        issues.add(
            checks.INVALID_VALUE, child(path, "dimensions"), "dimensions must look like 1280x720"
        )
    size = record.get("file_size_kb")
    if size is not None and (json_type(size) not in ("integer", "number") or size < 0):
        issues.add(
            checks.INVALID_VALUE,
            child(path, "file_size_kb"),
            "file_size_kb must be a non-negative number",
        )
    checks.check_type(record, "approved", path, issues, ("boolean",))


def assess_confirmed_intent(
    record: Any, path: str, issues: Collector, *, missing_version: int | None
) -> None:
    if not checks.closed_v1_record(
        record,
        path,
        issues,
        missing=missing_version,
        name="confirmed_intents",
        required=shapes.required("db-confirmed-intent", 1),
        optional=shapes.optional("db-confirmed-intent", 1),
    ):
        return
    checks.check_nonempty_string(record, "pattern", path, issues)
    checks.check_nonempty_string(record, "intent", path, issues)
    for key in shapes.typed("db-confirmed-intent", 1, "string", "null"):
        checks.check_type(record, key, path, issues, ("string", "null"))


GOAL = "db-improvement-goal"
GOAL_KINDS = shapes.enum(GOAL, 2, "kind")
GOAL_STATUSES = shapes.enum(GOAL, 2, "status")
GOAL_VERIFICATION_STATES = shapes.enum(GOAL, 2, "verification_state")
GOAL_LANES = {
    "antipattern": "pattern_scoring",
    "underuse": "pattern_scoring",
    "pacing": "pacing",
    "other": "independent",
}


def assess_goal(record: Any, path: str, issues: Collector, *, missing_version: int | None) -> None:
    version = checks.record_version(
        record,
        path,
        shapes.versions(GOAL),
        issues,
        missing=missing_version,
        what="improvement_goals record",
    )
    if version is None:
        return
    checks.closed_fields(
        record,
        path,
        issues,
        required=shapes.required(GOAL, version),
        optional=shapes.optional(GOAL, version),
        what=f"improvement_goals v{version}",
    )
    checks.check_nonempty_string(record, "id", path, issues)
    checks.check_nonempty_string(record, "issue", path, issues)
    checks.check_enum(record, "kind", path, issues, GOAL_KINDS)
    checks.check_enum(record, "status", path, issues, GOAL_STATUSES)
    checks.check_enum(record, "verification_state", path, issues, GOAL_VERIFICATION_STATES)
    checks.check_string_list(record, "verification_reasons", path, issues)
    for key in shapes.typed(GOAL, version, "string", "null"):
        checks.check_type(record, key, path, issues, ("string", "null"))
    kind = record.get("kind")
    if "antipattern_id" in record:
        value = record["antipattern_id"]
        if kind == "antipattern" and not (isinstance(value, str) and value.strip()):
            issues.add(
                checks.INVALID_VALUE,
                child(path, "antipattern_id"),
                "an antipattern goal names its antipattern_id",
            )
        elif kind != "antipattern" and value is not None:
            issues.add(
                checks.INVALID_VALUE,
                child(path, "antipattern_id"),
                "antipattern_id is null unless kind is antipattern",
            )
    if version == 2 and "baseline_provenance" in record:
        _assess_provenance(
            record["baseline_provenance"], kind, child(path, "baseline_provenance"), issues
        )


def _assess_provenance(provenance: Any, kind: Any, path: str, issues: Collector) -> None:
    if not checks.require_object(provenance, path, issues, "baseline_provenance"):
        return
    lane = provenance.get("lane")
    checks.closed_fields(
        provenance,
        path,
        issues,
        required=("lane",),
        optional=("pattern_baseline",),
        what="baseline_provenance",
    )
    if lane not in ("pattern_scoring", "pacing", "independent"):
        issues.add(
            checks.INVALID_VALUE,
            child(path, "lane"),
            "lane must be pattern_scoring, pacing or independent",
        )
        return
    if isinstance(kind, str) and GOAL_LANES.get(kind) not in (None, lane):
        issues.add(
            checks.INVALID_VALUE,
            child(path, "lane"),
            f"a {kind} goal uses the {GOAL_LANES[kind]} lane",
        )
    if lane != "pattern_scoring":
        if "pattern_baseline" in provenance:
            issues.add(
                checks.UNKNOWN_FIELD,
                child(path, "pattern_baseline"),
                "only the pattern_scoring lane has a baseline",
            )
        return
    bpath = child(path, "pattern_baseline")
    baseline = provenance.get("pattern_baseline")
    if "pattern_baseline" not in provenance:
        issues.add(
            checks.MISSING_FIELD, bpath, "the pattern_scoring lane carries a pattern_baseline"
        )
        return
    if not checks.require_object(baseline, bpath, issues, "pattern_baseline"):
        return
    if (
        checks.version_of(
            baseline, bpath, (2,), issues, missing=None, what="post-batch adherence baseline"
        )
        is None
    ):
        return
    if baseline.get("active_batch_excluded") is not False:
        issues.add(
            checks.INVALID_VALUE,
            child(bpath, "active_batch_excluded"),
            "a post-batch baseline has active_batch_excluded false",
        )
    if baseline.get("excluded_filenames") != []:
        issues.add(
            checks.INVALID_VALUE,
            child(bpath, "excluded_filenames"),
            "a post-batch baseline excludes no filenames",
        )


REJECTION = "db-source-rejection"
SOURCE_REJECTION_TYPES = shapes.enum(REJECTION, 1, "source_type")
SOURCE_REJECTION_REASONS = shapes.enum(REJECTION, 1, "reason")


def assess_source_rejection(
    record: Any, path: str, issues: Collector, *, missing_version: int | None
) -> None:
    if not checks.closed_v1_record(
        record,
        path,
        issues,
        missing=missing_version,
        name="source_rejections",
        required=shapes.required(REJECTION, 1),
    ):
        return
    checks.check_enum(record, "source_type", path, issues, SOURCE_REJECTION_TYPES)
    checks.check_nonempty_string(record, "url", path, issues)
    checks.check_enum(record, "reason", path, issues, SOURCE_REJECTION_REASONS)
    checks.check_nonempty_string(record, "evidence", path, issues)
    stamp = record.get("verified_at")
    if "verified_at" in record and not (
        isinstance(stamp, str) and checks.AWARE_TIMESTAMP_RE.fullmatch(stamp)
    ):
        issues.add(
            checks.INVALID_VALUE,
            child(path, "verified_at"),
            "verified_at must be a timezone-aware ISO-8601 timestamp",
        )
