"""One plan, one transaction.

The whole plan is applied to an in-memory candidate; any failed type,
record, expectation or file-generation precondition refuses the plan with
nothing installed. The candidate is assessed as a whole before it can be
written, and a plan that changes nothing keeps the original bytes (so the
writer reports ``unchanged`` and the inode is untouched).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import json_equal

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.model import Assessment, child
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.config_paths import check_config_paths
from rvault_tracking_db.mutations.encoding import candidate_bytes
from rvault_tracking_db.mutations.engine import apply_plan
from rvault_tracking_db.mutations.plan import SET_CONFIG, Plan
from rvault_tracking_db.reader import MAX_REPORTED_ISSUES

MUTATION_REPORT_VERSION = 1


def _tolerated(plan: Plan) -> Callable[[Issue], bool] | None:
    """Input issues at (or below) a config path the plan rewrites.

    This is how an invalid stored ``vault_storage_path`` or a literally
    persisted missing marker gets repaired by ``set_config``: the value the
    plan replaces may be invalid, and the whole candidate is assessed before
    anything is written.
    """
    prefixes = tuple(
        "$" + "".join(child("", key) for key in ["config", *m.body["path"]])
        for m in plan.mutations
        if m.kind == SET_CONFIG
    )
    if not prefixes:
        return None

    def tolerate(issue: Issue) -> bool:
        return any(issue.path == p or issue.path.startswith(p + "[") for p in prefixes)

    return tolerate


def _unchanged(candidate: dict[str, Any], database: dict[str, Any] | None) -> bool:
    """Exact JSON equality, cheap for the members the plan did not replace."""
    if database is None or candidate.keys() != database.keys():
        return False
    return all(
        candidate[key] is database[key] or json_equal(candidate[key], database[key])
        for key in candidate
    )


def assess_candidate(
    candidate: dict[str, Any],
    database_path: Path,
    prior: tuple[dict[str, Any], Assessment] | None,
) -> Assessment:
    """The owner assessment of a plan's result; a fatal finding refuses the plan.

    Every plan-shaped writer (mutations and source lanes) assesses its candidate
    the same way, incrementally from the read's own assessment when it has one.
    """
    verdict = assess_database(
        candidate, database_parent=database_parent(database_path), derived_from=prior
    )
    if verdict.fatal:
        first = verdict.fatal[0]
        raise Refusal(
            first.code,
            f"the plan would leave an invalid database: {first.message}",
            first.path,
            stage="candidate",
            issues=[i.to_dict() for i in verdict.fatal[:MAX_REPORTED_ISSUES]],
        )
    return verdict


def run_mutation(
    database_path: str | os.PathLike[str], plan: Plan, *, apply: bool, expected: str | None
) -> dict[str, Any]:
    """Dry-run or apply ``plan`` under the one apply protocol."""
    request = ApplyRequest(apply, expected, creating=plan.is_initialize)
    request.check()
    if plan.is_initialize:
        # configured locations depend on the plan alone: refuse them before any lock
        check_config_paths(plan.mutations[0].body.get("config", {}))
    with session(database_path, request, tolerate=_tolerated(plan)) as current:
        return _run(current, plan)


def _run(current: Session, plan: Plan) -> dict[str, Any]:
    result = current.result
    current.require_current_root("mutate")
    candidate, changes = apply_plan(result.database, plan)
    prior = None
    if result.database is not None and result.assessment is not None:
        prior = (result.database, result.assessment)
    verdict = assess_candidate(candidate, result.database_path, prior)
    original = result.snapshot.data
    if original is not None and _unchanged(candidate, result.database):
        new_bytes = original
    else:
        new_bytes = candidate_bytes(original, result.database, candidate)
    write = current.install(new_bytes)
    outcome = current.outcome(new_bytes, write, dry_run_state=None)
    return {
        "changed": new_bytes != original,
        "changes": changes,
        "database_path": result.database_path,
        "database_written": outcome["database_written"],
        "durability_state": outcome["durability_state"] if write is not None else None,
        "input_sha256": result.sha256,
        "mode": current.request.mode,
        "next_command": outcome["next_command"],
        "ok": True,
        "output_sha256": outcome["output_sha256"],
        "schema_version": MUTATION_REPORT_VERSION,
        "warnings": [issue.to_dict() for issue in verdict.warnings],
        "write": outcome["write"],
    }
