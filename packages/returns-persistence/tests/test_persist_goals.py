"""persist reports each improvement goal as the post-batch database judges it.

The goal is frozen on the very baseline persist reports (the all-inclusive
post-batch baseline v2), set two weeks before the batch's run date, and names
an antipattern the batch's returns detect. Persist's dry run and apply show
the goal's assessment and the follow-up command; running that command (dry
run, then its apply) records the verification through the goals writer.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from persist_vault import RUN_DATE, batch, build_vault
from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli, run_cli_applied


def goal(baseline: dict[str, Any], pattern: str) -> dict[str, Any]:
    return {
        "schema_version": 2,
        "id": "fewer-antipatterns",
        "issue": f"stop {pattern}",
        "kind": "antipattern",
        "antipattern_id": pattern,
        "metric": f"share of evaluable talks where {pattern} is detected",
        "baseline_value": "1 of 2 talks (0.50)",
        "target": "at or below 0.00",
        "set_date": "2026-07-15",
        "set_by": "test",
        "status": "active",
        "current_value": "",
        "last_checked": None,
        "checked_by": None,
        "verification_state": "pending",
        "verification_reasons": [],
        "supersedes_goal_id": None,
        "baseline_provenance": {"lane": "pattern_scoring", "pattern_baseline": baseline},
    }


def test_persist_reports_goals_and_names_the_verify_command(tmp_path: Path) -> None:
    db, names = build_vault(tmp_path, members=2)
    returns = batch(db, names)
    path = tmp_path / "returns.json"
    path.write_text(json.dumps(returns), encoding="utf-8")
    args = ("rvault-returns", "persist", db, path, "--run-date", RUN_DATE)
    first = run_cli(*args).json
    assert first["improvement_goals"] == [] and first["goals_command"] is None

    pattern = returns[0]["pattern_observations"]["antipatterns_detected"][0]["pattern_id"]
    stored = json.loads(db.read_bytes())
    stored["improvement_goals"] = [goal(first["current_adherence_baseline"], pattern)]
    db.write_bytes(artifact_bytes(stored))

    result = run_cli_applied(*args)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("returns-persistence-report", 2, report) == []
    [row] = report["improvement_goals"]
    assert row["decision"] == "comparable" and row["writes"] is True
    assert row["status"] == "regressed"  # detected in both talks: 0.50 -> 1.00, target 0.00
    assert row["current_value"] == "2 of 2 talks (1.00)"
    assert sorted(row["talks_counted"]) == sorted(names)
    command = report["goals_command"]
    assert command == shlex.join(
        ["rvault-db", "goals", "verify", str(db), "--checked-at", RUN_DATE[:10]]
    )

    program, *words = shlex.split(command)
    dry = run_cli(program, *words).json
    assert dry["mutation"]["database_written"] is False
    program, *words = shlex.split(dry["next_command"])
    verified = run_cli(program, *words)
    assert verified.returncode == 0, verified.stdout
    [recorded] = json.loads(db.read_bytes())["improvement_goals"]
    assert recorded["status"] == "regressed"
    assert recorded["current_value"] == "2 of 2 talks (1.00)"
    assert recorded["last_checked"] == RUN_DATE[:10]
    assert recorded["baseline_value"] == "1 of 2 talks (0.50)"  # the yardstick never moves
