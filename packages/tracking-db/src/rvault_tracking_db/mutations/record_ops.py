"""``record_pptx``, ``record_resource``, ``record_thumbnail``,
``record_confirmed_intent`` and ``record_qr``: keyed upserts.

Each writer requires the exact current record version (a boolean or a
future version is not equivalent), validates the complete record with the
assessment's rules at the writer's stricter level (a malformed PPTX receipt
is fatal here, unlike at read), and binds the change to an expectation: the
exact record seen, or the missing marker for a new key.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rvault_contracts.issues import Collector
from rvault_contracts.strict_json import json_equal

from rvault_tracking_db.assessment.model import child, is_int
from rvault_tracking_db.assessment.pptx import CURRENT_PPTX_VERSION, assess_pptx, receipt_problems
from rvault_tracking_db.assessment.records import (
    assess_confirmed_intent,
    assess_qr,
    assess_resource,
    assess_thumbnail,
    resource_sum_problem,
)
from rvault_tracking_db.mutations.plan import (
    RECORD_CONFIRMED_INTENT,
    RECORD_PPTX,
    RECORD_QR,
    RECORD_RESOURCE,
    RECORD_THUMBNAIL,
    Mutation,
    PlanRefusal,
    is_missing_marker,
)


@dataclass(frozen=True)
class RecordKind:
    array: str
    key: str
    version: int
    assess: Callable[..., None]


RECORD_KINDS: dict[str, RecordKind] = {
    RECORD_PPTX: RecordKind("pptx_catalog", "pptx_path", CURRENT_PPTX_VERSION, assess_pptx),
    RECORD_RESOURCE: RecordKind("resources", "talk_slug", 1, assess_resource),
    RECORD_THUMBNAIL: RecordKind("thumbnails", "talk_slug", 1, assess_thumbnail),
    RECORD_CONFIRMED_INTENT: RecordKind("confirmed_intents", "pattern", 1, assess_confirmed_intent),
    RECORD_QR: RecordKind("qr_codes", "talk_slug", 2, assess_qr),
}


def validate_record(kind: str, record: dict[str, Any], path: str) -> None:
    """Refuse a record the writer must not persist (first problem wins)."""
    spec = RECORD_KINDS[kind]
    vpath = child(path, "schema_version")
    version = record.get("schema_version")
    if not is_int(version) or version != spec.version:
        raise PlanRefusal(
            "invalid_schema_version",
            f"{kind} requires the exact integer schema_version {spec.version}",
            vpath,
        )
    issues = Collector()
    spec.assess(record, path, issues, missing_version=None)
    if issues.items:
        first = issues.items[0]
        code = first.code if first.is_error else "invalid_visual_evidence"
        raise PlanRefusal(code, first.message, first.path)
    if kind == RECORD_PPTX and record.get("visual_evidence") is not None:
        problems = receipt_problems(record["visual_evidence"])
        if problems:
            sub, message = problems[0]
            raise PlanRefusal(
                "invalid_visual_evidence", message, child(path, "visual_evidence") + sub[1:]
            )
    if kind == RECORD_RESOURCE:
        problem = resource_sum_problem(record)
        if problem is not None:
            raise PlanRefusal("category_count_mismatch", problem, child(path, "item_count"))


@dataclass
class OwnedArray:
    """A record array this plan already copied, with an index of its string keys.

    Copying and scanning the whole array for every upsert made a long plan
    quadratic (8000 records: ~17 s); one copy and a dict lookup keep it linear.
    """

    records: list[Any]
    by_key: dict[str, list[int]]

    @classmethod
    def copy_of(cls, records: list[Any], key: str) -> OwnedArray:
        by_key: dict[str, list[int]] = {}
        for i, existing in enumerate(records):
            if isinstance(existing, dict) and type(existing.get(key)) is str:
                by_key.setdefault(existing[key], []).append(i)
        return cls(list(records), by_key)


def record_upsert(
    database: dict[str, Any], mutation: Mutation, owned: dict[str, OwnedArray]
) -> dict[str, Any]:
    """Upsert one record; ``owned`` carries the arrays this plan already copied."""
    spec = RECORD_KINDS[mutation.kind]
    record = mutation.body["record"]
    rpath = child(mutation.path, "record")
    validate_record(mutation.kind, record, rpath)
    key_value = record[spec.key]
    array = owned.get(spec.array)
    if array is None:
        records = database.get(spec.array)
        if not isinstance(records, list):
            raise PlanRefusal(
                "missing_field", f"the database has no {spec.array} array", child("$", spec.array)
            )
        array = owned[spec.array] = OwnedArray.copy_of(records, spec.key)
    records = array.records
    if type(key_value) is str:  # exact-type equality: only a string key can match
        matches = list(array.by_key.get(key_value, []))
    else:
        matches = [
            i
            for i, existing in enumerate(records)
            if isinstance(existing, dict) and json_equal(existing.get(spec.key), key_value)
        ]
    if len(matches) > 1:
        raise PlanRefusal(
            "ambiguous_record_key",
            f"{spec.array} holds {len(matches)} records with {spec.key} {key_value!r}",
            child("$", spec.array),
        )
    expect = mutation.body["expect"]
    epath = child(mutation.path, "expect")
    before = records[matches[0]] if matches else None
    if is_missing_marker(expect):
        if before is not None:
            raise PlanRefusal("expectation_failed", "a record with this key already exists", epath)
    elif before is None:
        raise PlanRefusal("expectation_failed", "no record with this key exists", epath)
    elif not json_equal(expect, before):
        raise PlanRefusal(
            "expectation_failed", "the stored record differs from the expectation", epath
        )
    stored = copy.deepcopy(record)
    if matches:
        records[matches[0]] = stored
    else:
        records.append(stored)
        if type(key_value) is str:
            array.by_key.setdefault(key_value, []).append(len(records) - 1)
    database[spec.array] = records
    change: dict[str, Any] = {
        "kind": mutation.kind,
        "array": spec.array,
        "key": {spec.key: key_value},
        "before_exists": before is not None,
        "after_exists": True,
        "changed": before is None or not json_equal(before, record),
        "after": record,
    }
    if before is not None:
        change["before"] = before
    return change
