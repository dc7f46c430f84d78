"""Apply a decoded plan to a database value, copy-on-write.

The input database is never modified: each operation replaces only the
top-level member it touches (config, one record array, the talks array with
one talk copied), so an unchanged talk is shared, not copied.
"""

from __future__ import annotations

from typing import Any

from rvault_tracking_db.mutations.config_ops import initialize, set_config
from rvault_tracking_db.mutations.goal_ops import patch_goal_verification, upsert_goal
from rvault_tracking_db.mutations.metadata_ops import apply_reviewed
from rvault_tracking_db.mutations.plan import (
    APPLY_REVIEWED_METADATA,
    INITIALIZE,
    PATCH_GOAL_VERIFICATION,
    SET_CONFIG,
    UPSERT_GOAL,
    Plan,
    PlanRefusal,
)
from rvault_tracking_db.mutations.record_ops import RECORD_KINDS, OwnedArray, record_upsert


def apply_plan(
    database: dict[str, Any] | None, plan: Plan
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The candidate database and one change receipt per mutation."""
    if plan.is_initialize:
        if database is not None:
            raise PlanRefusal(
                "database_exists",
                "initialize_database only creates a missing database",
                plan.mutations[0].path,
            )
        candidate, change = initialize(plan.mutations[0])
        return candidate, [change]
    if database is None:
        raise PlanRefusal(
            "database_missing", "the database does not exist; initialize it first", "$"
        )
    candidate = dict(database)
    changes: list[dict[str, Any]] = []
    config_copied = False  # the candidate's config is this plan's own copy
    owned_arrays: dict[str, OwnedArray] = {}  # record arrays this plan already copied
    owned_goals: dict[str, list[Any]] = {}  # the goals array, once this plan copied it
    for mutation in plan.mutations:
        if mutation.kind == SET_CONFIG:
            changes.append(set_config(candidate, mutation, copy_config=not config_copied))
            config_copied = True
        elif mutation.kind in RECORD_KINDS:
            changes.append(record_upsert(candidate, mutation, owned_arrays))
        elif mutation.kind == APPLY_REVIEWED_METADATA:
            changes.append(apply_reviewed(candidate, mutation))
        elif mutation.kind == UPSERT_GOAL:
            changes.append(upsert_goal(candidate, mutation, owned_goals))
        elif mutation.kind == PATCH_GOAL_VERIFICATION:
            changes.append(patch_goal_verification(candidate, mutation, owned_goals))
        else:  # pragma: no cover - decode_plan admits only the kinds above
            assert mutation.kind != INITIALIZE
            raise PlanRefusal("unknown_mutation_kind", mutation.kind, mutation.path)
    return candidate, changes
