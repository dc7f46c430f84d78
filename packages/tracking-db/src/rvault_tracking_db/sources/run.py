"""One source plan, one transaction, under the one apply protocol.

The shortcuts build their plan from the database they read (each ``expect``
is the value stored now) and run it here exactly like ``rvault-db sources``
runs a plan from a file; their report carries that plan, so a dry run can be
saved, reviewed and replayed with ``sources``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.strict_json import json_path
from rvault_contracts.suggest import closest, did_you_mean

from rvault_tracking_db.apply_protocol import ApplyRequest, Session, session
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.mutations.encoding import candidate_bytes
from rvault_tracking_db.mutations.transaction import assess_candidate
from rvault_tracking_db.sources.lanes import apply_source_plan
from rvault_tracking_db.sources.plan import SourcePlan, parse_source_plan

REPORT_VERSION = 1

#: a shortcut: builds the plan document from what the session read
PlanBuilder = Callable[[Session], dict[str, Any]]


def run_sources(
    database_path: str | os.PathLike[str],
    plan: SourcePlan | PlanBuilder,
    request: ApplyRequest,
    *,
    command: str = "sources",
) -> dict[str, Any]:
    with session(database_path, request) as current:
        current.require_current_root(command)
        # a shortcut's plan is decoded like a file's: it meets the same contract
        built = parse_source_plan(plan(current)) if callable(plan) else plan
        return _run(current, built, command, shortcut=callable(plan))


def _run(current: Session, plan: SourcePlan, command: str, *, shortcut: bool) -> dict[str, Any]:
    result = current.result
    assert result.database is not None and result.assessment is not None
    roots = SourceRoots.from_config(current.vault_root, result.database.get("config"))
    try:
        outcome = apply_source_plan(result.database, plan, roots)
    except Refusal as refusal:
        if refusal.code != "talk_not_found":
            raise
        raise _talk_not_found(refusal, plan, result.database, shortcut) from None
    verdict = assess_candidate(
        outcome.database, result.database_path, (result.database, result.assessment)
    )
    original = result.snapshot.data
    assert original is not None
    changed = any(c["changed"] for c in outcome.changes) or any(
        c["before"] != c["after"] for c in outcome.capabilities
    )
    new_bytes = (
        candidate_bytes(original, result.database, outcome.database) if changed else original
    )
    write = current.install(new_bytes)
    fields = current.outcome(new_bytes, write, dry_run_state=None)
    return {
        "schema_version": REPORT_VERSION,
        "ok": True,
        "command": command,
        "mode": fields["mode"],
        "database_path": result.database_path,
        "input_sha256": result.sha256,
        "output_sha256": fields["output_sha256"],
        "changed": new_bytes != original,
        "database_written": fields["database_written"],
        "durability_state": fields["durability_state"] if write is not None else None,
        "write": fields["write"],
        "next_command": fields["next_command"],
        "plan": plan.document,
        "changes": outcome.changes,
        "capabilities": outcome.capabilities,
        "warnings": [issue.to_dict() for issue in verdict.warnings],
    }


def _talk_not_found(
    refusal: Refusal, plan: SourcePlan, database: Mapping[str, Any], shortcut: bool
) -> Refusal:
    """The refusal with the closest filenames, at the option typed when a shortcut built the plan.

    A shortcut's plan is generated from ``--talk``; its JSON path
    (``$["mutations"][0]["filename"]``) names nothing the person wrote, so it
    moves to ``plan_path`` and the path is the option.
    """
    typed = next(
        (
            c.body.get("filename")
            for c in plan.changes
            if refusal.path == json_path(c.path, "filename")
        ),
        None,
    )
    talks = database.get("talks")
    known = (
        [t.get("filename") for t in talks if isinstance(t, Mapping)]
        if isinstance(talks, list)
        else []
    )
    context = dict(refusal.context)
    if isinstance(typed, str):
        context["closest"] = closest(typed, known)
    message = refusal.message + (did_you_mean(typed, known) if isinstance(typed, str) else "")
    if shortcut:
        context["plan_path"] = refusal.path
    return Refusal(refusal.code, message, "--talk" if shortcut else refusal.path, **context)
