"""``upsert_improvement_goal`` and ``patch_improvement_goal_verification``.

A goal is the speaker's own yardstick, so the two writers split what may
change. The goals writer (``rvault-db goals set/revise/retire``) creates a
complete schema-v2 record or retires one; it never rewrites an existing
record's baseline, target, issue or dates (a rebaseline is a new record that
supersedes the old one), and it never turns a v1 record into v2. The
verification writer (``rvault-db goals verify``) changes only the
verification fields, each bound to the value it last read. Both refuse with
the plan path of the offending member; nothing is installed.
"""

from __future__ import annotations

import copy
from typing import Any

from rvault_contracts.issues import Collector
from rvault_contracts.strict_json import json_equal

from rvault_tracking_db.assessment.model import child, is_int
from rvault_tracking_db.assessment.records import assess_goal
from rvault_tracking_db.mutations.plan import Mutation, PlanRefusal, is_missing_marker

ARRAY = "improvement_goals"
CURRENT_GOAL_VERSION = 2
RETIRED = "retired"
V2_ONLY_FIELDS = frozenset({"verification_state", "verification_reasons"})
#: The statuses the verification rubric may set; active and retired belong to the goals writer.
VERIFIED_STATUSES = frozenset({"achieved", "improving", "stalled", "regressed"})


def _goals(database: dict[str, Any], owned: dict[str, list[Any]]) -> list[Any]:
    """The plan's own copy of the goals array (copied once per plan)."""
    if ARRAY not in owned:
        goals = database.get(ARRAY)
        if not isinstance(goals, list):
            raise PlanRefusal(
                "missing_field", f"the database has no {ARRAY} array", f'$["{ARRAY}"]'
            )
        owned[ARRAY] = list(goals)
        database[ARRAY] = owned[ARRAY]
    return owned[ARRAY]


def _find(goals: list[Any], goal_id: Any, path: str) -> int | None:
    matches = [i for i, g in enumerate(goals) if isinstance(g, dict) and g.get("id") == goal_id]
    if len(matches) > 1:
        raise PlanRefusal(
            "ambiguous_record_key", f"{ARRAY} holds {len(matches)} goals with id {goal_id!r}", path
        )
    return matches[0] if matches else None


def validate_goal(record: dict[str, Any], path: str) -> None:
    """Refuse a goal record the writers must not persist (first error wins)."""
    issues = Collector()
    assess_goal(record, path, issues, missing_version=None)
    errors = [i for i in issues.items if i.is_error]
    if errors:
        raise PlanRefusal(errors[0].code, errors[0].message, errors[0].path)


def upsert_goal(
    database: dict[str, Any], mutation: Mutation, owned: dict[str, list[Any]]
) -> dict[str, Any]:
    """Create a v2 goal (expect: the missing marker) or retire a stored one (expect: it)."""
    record = mutation.body["record"]
    rpath = child(mutation.path, "record")
    epath = child(mutation.path, "expect")
    goals = _goals(database, owned)
    index = _find(goals, record.get("id"), child(rpath, "id"))
    expect = mutation.body["expect"]
    before = goals[index] if index is not None else None
    if is_missing_marker(expect):
        if before is not None:
            raise PlanRefusal(
                "expectation_failed",
                f"a goal with id {record.get('id')!r} already exists",
                epath,
                hint="choose a new id, or revise the goal (rvault-db goals revise) to supersede it",
            )
        version = record.get("schema_version")
        if not is_int(version) or version != CURRENT_GOAL_VERSION:
            raise PlanRefusal(
                "invalid_schema_version",
                f"a new goal is written at schema_version {CURRENT_GOAL_VERSION}",
                child(rpath, "schema_version"),
            )
        validate_goal(record, rpath)
        goals.append(copy.deepcopy(record))
    else:
        if before is None or not json_equal(expect, before):
            raise PlanRefusal(
                "expectation_failed", "the stored goal differs from the expectation", epath
            )
        _retire_only(before, record, rpath)
        goals[index] = copy.deepcopy(record)
    return _change(mutation.kind, record, before)


def _retire_only(before: dict[str, Any], record: dict[str, Any], path: str) -> None:
    """An existing goal may only be retired: every other field stays exactly as stored."""
    if record.get("status") != RETIRED:
        raise PlanRefusal(
            "goal_fixed_fields",
            "an existing goal is never rewritten; it can only be retired",
            child(path, "status"),
            hint="revise the goal instead: rvault-db goals revise retires it and supersedes it "
            "with a new record",
        )
    for key in sorted(set(before) | set(record)):
        if key != "status" and not json_equal(before.get(key), record.get(key)):
            raise PlanRefusal(
                "goal_fixed_fields",
                f"{key} of a stored goal never changes (the baseline and target are the "
                "speaker's fixed yardstick)",
                child(path, key),
                hint="revise the goal: a new record supersedes the old one",
            )


def patch_goal_verification(
    database: dict[str, Any], mutation: Mutation, owned: dict[str, list[Any]]
) -> dict[str, Any]:
    """Set verification fields of one goal, each bound to the value last read."""
    body = mutation.body
    goals = _goals(database, owned)
    index = _find(goals, body["id"], child(mutation.path, "id"))
    if index is None:
        raise PlanRefusal(
            "goal_not_found", f"no goal with id {body['id']!r}", child(mutation.path, "id")
        )
    before = goals[index]
    version = before.get("schema_version", 1)
    spath = child(mutation.path, "set")
    for name, value in body["set"].items():
        if name in V2_ONLY_FIELDS and version != CURRENT_GOAL_VERSION:
            raise PlanRefusal(
                "goal_fixed_fields",
                f"a schema-v{version} goal never gains {name}",
                child(spath, name),
            )
        if name == "status" and value not in VERIFIED_STATUSES:
            raise PlanRefusal(
                "invalid_value",
                f"verification sets status to one of {sorted(VERIFIED_STATUSES)}",
                child(spath, name),
            )
        seen = body["expect"][name]
        if is_missing_marker(seen) != (name not in before) or (
            name in before and not json_equal(seen, before[name])
        ):
            raise PlanRefusal(
                "expectation_failed",
                f"{name} of goal {body['id']!r} changed since it was read",
                child(child(mutation.path, "expect"), name),
            )
    if before.get("status") in (RETIRED, "achieved"):
        raise PlanRefusal(
            "goal_not_active",
            f"goal {body['id']!r} is {before.get('status')}; verification skips it",
            child(mutation.path, "id"),
        )
    after = {**copy.deepcopy(before), **copy.deepcopy(body["set"])}
    validate_goal(after, f'$["{ARRAY}"][{index}]')
    goals[index] = after
    return _change(mutation.kind, after, before)


def _change(kind: str, after: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    change: dict[str, Any] = {
        "kind": kind,
        "array": ARRAY,
        "key": {"id": after.get("id")},
        "before_exists": before is not None,
        "after_exists": True,
        "changed": before is None or not json_equal(before, after),
        "after": after,
    }
    if before is not None:
        change["before"] = before
    return change
