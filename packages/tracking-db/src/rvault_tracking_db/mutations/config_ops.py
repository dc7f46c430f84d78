"""``initialize_database`` and ``set_config``.

Both work on a copy of the config only (the talks are shared by reference),
so a plan over a large vault costs little more than the config it touches.
"""

from __future__ import annotations

import copy
from typing import Any

from rvault_contracts.strict_json import json_equal

from rvault_tracking_db.assessment.config import (
    CURRENT_CONFIG_VERSION,
    DEFAULT_PPTX_DIRECTORY_EXCLUSIONS,
)
from rvault_tracking_db.assessment.model import child, is_int
from rvault_tracking_db.assessment.root import CURRENT_ROOT_VERSION, OWNED_ARRAYS
from rvault_tracking_db.mutations.plan import Mutation, PlanRefusal, is_missing_marker


def initialize(mutation: Mutation) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new current database: root v1, config v2, every owned array empty."""
    config = copy.deepcopy(mutation.body.get("config", {}))
    if "schema_version" in config:
        version = config["schema_version"]
        if not is_int(version) or version != CURRENT_CONFIG_VERSION:
            raise PlanRefusal(
                "invalid_schema_version",
                f"initialize_database stamps config schema_version {CURRENT_CONFIG_VERSION}",
                child(child(mutation.path, "config"), "schema_version"),
            )
    config["schema_version"] = CURRENT_CONFIG_VERSION
    defaulted = "pptx_directory_exclusions" not in config
    if defaulted:
        config["pptx_directory_exclusions"] = list(DEFAULT_PPTX_DIRECTORY_EXCLUSIONS)
    database: dict[str, Any] = {"schema_version": CURRENT_ROOT_VERSION, "config": config}
    for key in OWNED_ARRAYS:
        database[key] = []
    change = {
        "kind": mutation.kind,
        "default_pptx_directory_exclusions": defaulted,
        "root_schema_version": CURRENT_ROOT_VERSION,
        "config_schema_version": CURRENT_CONFIG_VERSION,
    }
    return database, change


def set_config(
    database: dict[str, Any], mutation: Mutation, *, copy_config: bool = True
) -> dict[str, Any]:
    """Apply one set/delete to ``database["config"]`` (replaced by a copy).

    ``copy_config=False`` when this plan already replaced the config with its
    own copy: copying it again for every mutation made a long plan quadratic.
    """
    body = mutation.body
    keys: list[str] = body["path"]
    expect = body["expect"]
    config = database.get("config")
    if not isinstance(config, dict):
        raise PlanRefusal("config_missing", "the database has no config object", '$["config"]')
    if copy_config:
        config = copy.deepcopy(config)
    parent: dict[str, Any] | None = config
    for depth, key in enumerate(keys[:-1]):
        assert parent is not None
        if key not in parent:
            if "delete" in body:
                parent = None
                break
            parent[key] = {}
        elif not isinstance(parent[key], dict):
            raise PlanRefusal(
                "config_path_not_object",
                f"config.{'.'.join(keys[: depth + 1])} is not an object",
                child(mutation.path, "path"),
            )
        parent = parent[key]
    leaf = keys[-1]
    before_exists = parent is not None and leaf in parent
    before = parent[leaf] if parent is not None and before_exists else None
    _check_expectation(mutation, expect, before_exists, before)
    if "delete" in body:
        if parent is not None and before_exists:
            del parent[leaf]
        after_exists = False
        after = None
    else:
        assert parent is not None
        parent[leaf] = copy.deepcopy(body["value"])
        after_exists = True
        after = body["value"]
    database["config"] = config
    change: dict[str, Any] = {
        "kind": mutation.kind,
        "path": list(keys),
        "before_exists": before_exists,
        "after_exists": after_exists,
        "changed": before_exists != after_exists or not json_equal(before, after),
    }
    if before_exists:
        # a snapshot: later mutations of this plan may edit the shared config in place
        change["before"] = copy.deepcopy(before)
    if after_exists:
        change["after"] = after
    return change


def _check_expectation(mutation: Mutation, expect: Any, exists: bool, current: Any) -> None:
    epath = child(mutation.path, "expect")
    if is_missing_marker(expect):
        if not exists:
            return
        # A legacy writer may have persisted the marker literally: deleting it
        # under the missing expectation is the idempotent recovery.
        if "delete" in mutation.body and is_missing_marker(current):
            return
        raise PlanRefusal("expectation_failed", "the field is present, not missing", epath)
    if not exists:
        raise PlanRefusal("expectation_failed", "the field is missing", epath)
    if not json_equal(expect, current):
        raise PlanRefusal("expectation_failed", "the field does not equal the expectation", epath)
