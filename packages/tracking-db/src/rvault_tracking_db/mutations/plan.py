"""Typed mutation plans (schema v1), decoded with the database's strict gates.

A plan is exactly ``{"schema_version": 1, "mutations": [...]}``. Each
mutation kind has a closed field set; every expectation is either an exact
JSON value or the exact missing marker ``{"$missing": true}`` (which is
reserved and never valid as a value). Decoding refuses with the JSON path of
the offending plan member, before the database is even read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import StrictJSONError, json_equal, loads_strict
from rvault_contracts.suggest import closest, did_you_mean

from rvault_tracking_db.assessment.model import child, is_int, json_type

PLAN_VERSION = 1
MISSING_MARKER: dict[str, Any] = {"$missing": True}

INITIALIZE = "initialize_database"
SET_CONFIG = "set_config"
RECORD_PPTX = "record_pptx"
RECORD_RESOURCE = "record_resource"
RECORD_THUMBNAIL = "record_thumbnail"
RECORD_CONFIRMED_INTENT = "record_confirmed_intent"
RECORD_QR = "record_qr"
APPLY_REVIEWED_METADATA = "apply_reviewed_metadata"
UPSERT_GOAL = "upsert_improvement_goal"
PATCH_GOAL_VERIFICATION = "patch_improvement_goal_verification"
GOAL_KINDS = (UPSERT_GOAL, PATCH_GOAL_VERIFICATION)
#: What verification may set on a goal (a v1 record never gains the last two).
GOAL_VERIFICATION_FIELDS = (
    "status",
    "current_value",
    "last_checked",
    "checked_by",
    "verification_state",
    "verification_reasons",
)

RECORD_KINDS = (RECORD_PPTX, RECORD_RESOURCE, RECORD_THUMBNAIL, RECORD_CONFIRMED_INTENT, RECORD_QR)
KINDS = (INITIALIZE, SET_CONFIG, *RECORD_KINDS, APPLY_REVIEWED_METADATA, *GOAL_KINDS)

_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # kind: (required, optional)
    INITIALIZE: (("kind",), ("config",)),
    SET_CONFIG: (("kind", "path", "expect"), ("value", "delete")),
    APPLY_REVIEWED_METADATA: (("kind", "filename", "fields"), ()),
    **{kind: (("kind", "record", "expect"), ()) for kind in (*RECORD_KINDS, UPSERT_GOAL)},
    PATCH_GOAL_VERIFICATION: (("kind", "id", "set", "expect"), ()),
}


class PlanRefusal(Refusal):
    """A plan that cannot be executed as written; nothing is read or written."""


def is_missing_marker(value: Any) -> bool:
    """Exactly ``{"$missing": true}``: ``{"$missing": 1}`` is an ordinary object."""
    return json_equal(value, MISSING_MARKER)


@dataclass(frozen=True)
class Mutation:
    """One decoded mutation: its kind, its plan path and its closed body."""

    kind: str
    path: str
    body: dict[str, Any]


@dataclass(frozen=True)
class Plan:
    mutations: tuple[Mutation, ...]

    @property
    def is_initialize(self) -> bool:
        return len(self.mutations) == 1 and self.mutations[0].kind == INITIALIZE


def decode_plan(data: bytes) -> Plan:
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise PlanRefusal(exc.code, f"plan: {exc.message}", exc.path) from None
    return parse_plan(document)


def parse_plan(document: dict[str, Any]) -> Plan:
    for key in document:
        if key not in ("schema_version", "mutations"):
            raise PlanRefusal("unknown_field", f"a plan has no field {key!r}", child("$", key))
    if "schema_version" not in document:
        raise PlanRefusal("missing_field", "a plan needs schema_version", '$["schema_version"]')
    version = document["schema_version"]
    if not is_int(version) or version != PLAN_VERSION:
        raise PlanRefusal(
            "unsupported_schema_version",
            f"plan schema_version must be the integer {PLAN_VERSION}",
            '$["schema_version"]',
        )
    mutations = document.get("mutations")
    if not isinstance(mutations, list) or not mutations:
        raise PlanRefusal("invalid_value", "mutations must be a non-empty array", '$["mutations"]')
    decoded = tuple(_mutation(item, f'$["mutations"][{i}]') for i, item in enumerate(mutations))
    if any(m.kind == INITIALIZE for m in decoded) and len(decoded) != 1:
        raise PlanRefusal(
            "initialize_not_sole",
            "initialize_database must be the plan's sole mutation",
            '$["mutations"]',
        )
    return Plan(decoded)


def _mutation(item: Any, path: str) -> Mutation:
    if not isinstance(item, dict):
        raise PlanRefusal(
            "wrong_type", f"a mutation must be an object, not {json_type(item)}", path
        )
    kind = item.get("kind")
    if kind not in KINDS:
        raise PlanRefusal(
            "unknown_mutation_kind",
            f"unknown mutation kind {kind!r}{did_you_mean(str(kind), KINDS)}",
            child(path, "kind"),
            valid_kinds=list(KINDS),
            closest=closest(str(kind), KINDS),
            hint="use one of: " + ", ".join(KINDS),
        )
    required, optional = _FIELDS[kind]
    for key in item:
        if key not in required and key not in optional:
            raise PlanRefusal("unknown_field", f"{kind} has no field {key!r}", child(path, key))
    for key in required:
        if key not in item:
            raise PlanRefusal("missing_field", f"{kind} requires {key!r}", child(path, key))
    if kind == SET_CONFIG:
        _check_set_config(item, path)
    elif kind == INITIALIZE:
        if "config" in item and not isinstance(item["config"], dict):
            raise PlanRefusal("wrong_type", "config must be an object", child(path, "config"))
    elif kind == APPLY_REVIEWED_METADATA:
        _check_reviewed(item, path)
    elif kind == PATCH_GOAL_VERIFICATION:
        _check_goal_patch(item, path)
    else:
        if not isinstance(item["record"], dict):
            raise PlanRefusal("wrong_type", "record must be an object", child(path, "record"))
        expect = item["expect"]
        if not (is_missing_marker(expect) or isinstance(expect, dict)):
            raise PlanRefusal(
                "invalid_expectation",
                "a record expectation is the exact record seen or the missing marker",
                child(path, "expect"),
            )
    return Mutation(kind, path, item)


def _check_set_config(item: dict[str, Any], path: str) -> None:
    config_path = item["path"]
    ppath = child(path, "path")
    if not isinstance(config_path, list) or not config_path:
        raise PlanRefusal("invalid_value", "path must be a non-empty array of keys", ppath)
    for index, key in enumerate(config_path):
        if not isinstance(key, str) or not key:
            raise PlanRefusal(
                "invalid_value", "path members are non-empty strings", child(ppath, index)
            )
    if config_path == ["schema_version"]:
        raise PlanRefusal(
            "owner_controlled_field", "config.schema_version is owned by migration", ppath
        )
    has_value = "value" in item
    has_delete = "delete" in item
    if has_value == has_delete:
        raise PlanRefusal(
            "invalid_value", "set_config takes exactly one of value or delete: true", path
        )
    if has_delete and item["delete"] is not True:
        raise PlanRefusal("invalid_value", "delete must be exactly true", child(path, "delete"))
    if has_value and is_missing_marker(item["value"]):
        raise PlanRefusal(
            "missing_marker_as_value",
            "the missing marker is reserved and never a value; use delete: true",
            child(path, "value"),
        )


def _check_goal_patch(item: dict[str, Any], path: str) -> None:
    """Shape and field names; what a value may be is the goal writer's rule (goal_ops)."""
    if not isinstance(item["id"], str) or not item["id"].strip():
        raise PlanRefusal("invalid_value", "id must be a non-empty string", child(path, "id"))
    for key in ("set", "expect"):
        if not isinstance(item[key], dict) or not item[key]:
            raise PlanRefusal(
                "invalid_value", f"{key} must be a non-empty object", child(path, key)
            )
    if set(item["set"]) != set(item["expect"]):
        raise PlanRefusal(
            "invalid_expectation",
            "expect names exactly the fields set changes, with the values last read",
            child(path, "expect"),
        )
    for name, value in item["set"].items():
        if name not in GOAL_VERIFICATION_FIELDS:
            raise PlanRefusal(
                "goal_fixed_fields",
                f"verification never sets {name}; it sets only {list(GOAL_VERIFICATION_FIELDS)}",
                child(child(path, "set"), name),
            )
        if is_missing_marker(value):
            raise PlanRefusal(
                "missing_marker_as_value",
                "the missing marker is never a value",
                child(child(path, "set"), name),
            )


def _check_reviewed(item: dict[str, Any], path: str) -> None:
    filename = item["filename"]
    if not isinstance(filename, str) or not filename.strip():
        raise PlanRefusal(
            "invalid_value", "filename must be a non-empty string", child(path, "filename")
        )
    fields = item["fields"]
    fpath = child(path, "fields")
    if not isinstance(fields, dict) or not fields:
        raise PlanRefusal("invalid_value", "fields must be a non-empty object", fpath)
    for name, change in fields.items():
        cpath = child(fpath, name)
        if not isinstance(change, dict) or set(change) != {"expect", "value"}:
            raise PlanRefusal(
                "invalid_value", "each field change is exactly {expect, value}", cpath
            )
        if is_missing_marker(change["value"]):
            raise PlanRefusal(
                "missing_marker_as_value",
                "the missing marker is never a value",
                child(cpath, "value"),
            )
