"""Small field checkers the record assessments share.

Every checker appends issues instead of raising, and every type test is an
exact JSON type test (``true`` is not ``1``, ``1.0`` is not ``1``), because the
spec makes schema versions and expectations exact-type values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment.model import child, is_int, json_type

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Timezone-aware ISO-8601 timestamp: a date, a time and an explicit offset.
AWARE_TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")

UNSUPPORTED = "unsupported_schema_version"
ZERO_SENTINEL = "version_zero_sentinel"
INVALID_VERSION = "invalid_schema_version"
MISSING_VERSION = "missing_schema_version"
MISSING_FIELD = "missing_field"
UNKNOWN_FIELD = "unknown_field"
WRONG_TYPE = "wrong_type"
INVALID_VALUE = "invalid_value"


def version_of(
    record: Mapping[str, Any],
    path: str,
    supported: Iterable[int],
    issues: Collector,
    *,
    missing: int | None,
    what: str,
) -> int | None:
    """The record's schema version, or ``None`` after recording why not.

    ``missing`` is the historical version an absent key maps to (``None``
    when the key is required). A future or otherwise unsupported version is
    fatal: it is never read with an older identity.
    """
    if "schema_version" not in record:
        if missing is None:
            issues.add(
                MISSING_VERSION, child(path, "schema_version"), f"{what} needs schema_version"
            )
        return missing
    value = record["schema_version"]
    allowed = set(supported)
    if is_int(value) and value != 0 and value in allowed:
        return value  # the common case builds no path
    vpath = child(path, "schema_version")
    if not is_int(value):
        issues.add(
            INVALID_VERSION,
            vpath,
            f"{what} schema_version must be an integer, not {json_type(value)}",
        )
        return None
    if value == 0:
        issues.add(
            ZERO_SENTINEL, vpath, f"{what} schema_version 0 is an explicit sentinel, not a version"
        )
        return None
    if value not in allowed:
        issues.add(UNSUPPORTED, vpath, f"{what} schema_version {value} is not supported")
        return None
    return value


def require_object(value: Any, path: str, issues: Collector, what: str) -> bool:
    if isinstance(value, dict):
        return True
    issues.add(WRONG_TYPE, path, f"{what} must be an object, not {json_type(value)}")
    return False


def closed_fields(
    record: Mapping[str, Any],
    path: str,
    issues: Collector,
    *,
    required: Iterable[str],
    optional: Iterable[str] = (),
    what: str,
) -> None:
    """Refuse unknown keys and report missing required keys."""
    allowed = set(required) | set(optional)
    for key in record:
        if key not in allowed:
            issues.add(UNKNOWN_FIELD, child(path, key), f"{what} does not allow the field {key!r}")
    for key in required:
        if key not in record:
            issues.add(MISSING_FIELD, child(path, key), f"{what} requires the field {key!r}")


def check_type(
    record: Mapping[str, Any],
    key: str,
    path: str,
    issues: Collector,
    kinds: tuple[str, ...],
) -> bool:
    """Check ``record[key]`` (when present) has one of the JSON ``kinds``."""
    if key not in record:
        return True
    value = record[key]
    kind = json_type(value)
    if kind in kinds:
        return True
    issues.add(WRONG_TYPE, child(path, key), f"{key} must be {' or '.join(kinds)}, not {kind}")
    return False


def check_nonempty_string(
    record: Mapping[str, Any], key: str, path: str, issues: Collector, *, nullable: bool = False
) -> None:
    if key not in record:
        return
    value = record[key]
    if value is None and nullable:
        return
    if not isinstance(value, str) or not value.strip():
        issues.add(INVALID_VALUE, child(path, key), f"{key} must be a non-empty string")


def check_enum(
    record: Mapping[str, Any],
    key: str,
    path: str,
    issues: Collector,
    allowed: Iterable[Any],
    *,
    nullable: bool = False,
) -> None:
    if key not in record:
        return
    value = record[key]
    if value is None and nullable:
        return
    if not isinstance(value, str) or value not in set(allowed):
        issues.add(INVALID_VALUE, child(path, key), f"{key} must be one of {sorted(allowed)}")


def check_count(
    record: Mapping[str, Any], key: str, path: str, issues: Collector, *, nullable: bool = False
) -> None:
    """A non-negative exact integer."""
    if key not in record:
        return
    value = record[key]
    if value is None and nullable:
        return
    if not is_int(value) or value < 0:
        issues.add(INVALID_VALUE, child(path, key), f"{key} must be a non-negative integer")


def check_string_list(
    record: Mapping[str, Any], key: str, path: str, issues: Collector, *, unique: bool = False
) -> None:
    if key not in record:
        return
    value = record[key]
    kpath = child(path, key)
    if not isinstance(value, list):
        issues.add(WRONG_TYPE, kpath, f"{key} must be an array of strings")
        return
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            issues.add(INVALID_VALUE, child(kpath, index), f"{key} items must be non-empty strings")
    if unique and len({v for v in value if isinstance(v, str)}) != len(value):
        issues.add(INVALID_VALUE, kpath, f"{key} items must be unique")


def record_version(
    record: Any,
    path: str,
    supported: Iterable[int],
    issues: Collector,
    *,
    missing: int | None,
    what: str,
) -> int | None:
    """An independently versioned record's schema version, or ``None`` after
    recording why it cannot be assessed (not an object, or no usable version)."""
    if not require_object(record, path, issues, what):
        return None
    return version_of(record, path, supported, issues, missing=missing, what=what)


def closed_v1_record(
    record: Any,
    path: str,
    issues: Collector,
    *,
    missing: int | None,
    name: str,
    required: Iterable[str],
    optional: Iterable[str] = (),
) -> bool:
    """A record whose only version is 1: its version, then its closed field set.

    ``False`` (after recording why) when the record cannot be assessed further.
    """
    if record_version(record, path, (1,), issues, missing=missing, what=f"{name} record") is None:
        return False
    closed_fields(
        record,
        path,
        issues,
        required=required,
        optional=("schema_version", *optional),
        what=f"{name} v1",
    )
    return True
