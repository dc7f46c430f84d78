"""One plan, one transaction.

The whole plan is applied to an in-memory candidate; any failed type,
record, expectation or file-generation precondition refuses the plan with
nothing installed. The candidate is assessed as a whole before it can be
written, and a plan that changes nothing keeps the original bytes (so the
writer reports ``unchanged`` and the inode is untouched).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import json_equal
from rvault_contracts.writer import WriterError, writer_lock

from rvault_tracking_db.assessment import Issue, assess_database
from rvault_tracking_db.assessment.model import child
from rvault_tracking_db.assessment.storage_path import database_parent
from rvault_tracking_db.binding import (
    check_expected_argument,
    check_expected_matches,
    install_bound,
    write_fields,
)
from rvault_tracking_db.mutations.encoding import candidate_bytes
from rvault_tracking_db.mutations.engine import apply_plan
from rvault_tracking_db.mutations.plan import SET_CONFIG, Plan
from rvault_tracking_db.reader import MAX_REPORTED_ISSUES, read_database

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


def run_mutation(
    database_path: str | os.PathLike[str], plan: Plan, *, apply: bool, expected: str | None
) -> dict[str, Any]:
    target = Path(database_path)
    check_expected_argument(apply=apply, expected=expected, creating=plan.is_initialize)
    lock_context: Any = writer_lock(target) if apply else contextlib.nullcontext()
    try:
        with lock_context as lock:
            return _run_locked(target, plan, apply=apply, expected=expected, lock=lock)
    except WriterError as exc:
        raise Refusal(exc.code, exc.message, "$", file=exc.path) from None


def _run_locked(
    target: Path, plan: Plan, *, apply: bool, expected: str | None, lock: Any
) -> dict[str, Any]:
    result = read_database(target, allow_missing=plan.is_initialize, tolerate=_tolerated(plan))
    if result.assessment is not None and result.assessment.root_version != 1:
        raise Refusal(
            "migration_required",
            "typed mutations apply only to a current (schema 1) database; run rvault-db migrate",
            '$["schema_version"]',
        )
    if apply:
        assert expected is not None
        check_expected_matches(expected, result.sha256)
    candidate, changes = apply_plan(result.database, plan)
    prior = None
    if result.database is not None and result.assessment is not None:
        prior = (result.database, result.assessment)
    verdict = assess_database(
        candidate, database_parent=database_parent(result.database_path), derived_from=prior
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
    original = result.snapshot.data
    if original is not None and _unchanged(candidate, result.database):
        new_bytes = original
    else:
        new_bytes = candidate_bytes(original, result.database, candidate)
    write = None
    if apply:
        write = install_bound(target, new_bytes, result.snapshot, lock)
    report: dict[str, Any] = {
        "changed": new_bytes != original,
        "changes": changes,
        "database_path": result.database_path,
        "input_sha256": result.sha256,
        "mode": "apply" if apply else "dry-run",
        "ok": True,
        "output_sha256": sha256_bytes(new_bytes),
        "schema_version": MUTATION_REPORT_VERSION,
        "warnings": [issue.to_dict() for issue in verdict.warnings],
    }
    report.update(write_fields(write))
    return report
