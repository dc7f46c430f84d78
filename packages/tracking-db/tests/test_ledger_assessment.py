"""A talk's evidence ledger v2 is checked against the registered ``pattern-observations`` schema.

db-talk v5 constrains only ``evidence_schema_version``; the owner assessment
validates the ledger through its own contract. A broken one is that talk's
trouble, never the vault's: ``ledger_schema_violation`` is a warning at the
JSON path of the offending member, and every command that assesses the
database (read, status, queue claim, mutate, migrate) still works; status
shows the talk as needing reprocessing. The spec's own example database,
whose ledger is a sketch that breaks the contract, reads.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
from rvault_contracts import schemas
from rvault_contracts.fast_accept import fast_accepts
from rvault_contracts.schemas import is_valid, schema_issues
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import example_database, example_talk, spec_sketch_ledger
from rvault_tracking_db.assessment import assess_database
from rvault_tracking_db.assessment.ledger import LEDGER_SCHEMA_VIOLATION, MAX_LEDGER_ISSUES

LEDGER = '$["talks"][0]["pattern_observations"]'


def _database(mutator: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    database = example_database(claimed=False)
    database["talks"][0] = example_talk(outcomes=12)
    mutator(database["talks"][0]["pattern_observations"])
    return database


def _outcome(ledger: dict[str, Any]) -> None:
    ledger["pattern_outcomes"][0]["outcome"] = "bogus"


def _identity(ledger: dict[str, Any]) -> None:
    del ledger["opportunity_coverage_identity"]


def _line_zero(ledger: dict[str, Any]) -> None:
    ledger["patterns_detected"][0]["evidence_citations"][0]["line_start"] = 0


def _digest_newline(ledger: dict[str, Any]) -> None:
    # python-jsonschema's own ``$`` would accept this; the contracts' ECMA reading refuses it
    ledger["source_inspection"][0]["artifact_sha256"] = "b" * 64 + "\n"


def _unknown(ledger: dict[str, Any]) -> None:
    ledger["confidence_note"] = "added by hand"


BROKEN = [
    (_outcome, f'{LEDGER}["pattern_outcomes"][0]["outcome"]', "enum"),
    (_identity, LEDGER, "required"),
    (_line_zero, f'{LEDGER}["patterns_detected"][0]["evidence_citations"][0]["line_start"]',
     "minimum"),
    (_digest_newline, f'{LEDGER}["source_inspection"][0]["artifact_sha256"]', "pattern"),
    (_unknown, LEDGER, "additionalProperties"),
]  # fmt: skip


def test_the_example_ledger_is_contract_valid_and_reads_without_warnings(
    tmp_path: Path, capsys
) -> None:
    database = _database(lambda ledger: None)
    assert (
        schema_issues("pattern-observations", 2, database["talks"][0]["pattern_observations"]) == []
    )
    code, report = h.invoke(capsys, "read", h.write_db(tmp_path, database))
    assert code == 0, report
    assert report["warnings"] == []
    assert report["database"] == database


@pytest.mark.parametrize(
    ("mutator", "path", "validator"), BROKEN, ids=[b[0].__name__ for b in BROKEN]
)
def test_read_reports_a_ledger_that_breaks_its_contract_as_that_talks_warning(
    tmp_path: Path, snapshot_file, mutator, path: str, validator: str
) -> None:
    database = _database(mutator)
    assert is_valid("db-talk", 5, database["talks"][0])  # the talk schema alone cannot see it
    db = h.write_db(tmp_path, database)
    before = snapshot_file(db)
    result = run_cli("rvault-db", "read", db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert is_valid("db-read-report", 1, result.json)
    (warning,) = [w for w in result.json["warnings"] if w["path"] == path]
    assert warning["code"] == LEDGER_SCHEMA_VIOLATION
    assert f"pattern-observations v2 ({validator})" in warning["message"]
    assert "reprocess the talk" in warning["message"]
    assert result.json["database"] == database
    assert snapshot_file(db) == before


def test_every_violation_is_listed_with_its_own_path(tmp_path: Path, capsys) -> None:
    def two(ledger: dict[str, Any]) -> None:
        _outcome(ledger)
        _line_zero(ledger)

    code, doc = h.invoke(capsys, "read", h.write_db(tmp_path, _database(two)))
    assert code == 0, doc
    listed = {(i["code"], i["path"]) for i in doc["warnings"]}
    assert listed == {
        (LEDGER_SCHEMA_VIOLATION, BROKEN[0][1]),
        (LEDGER_SCHEMA_VIOLATION, BROKEN[2][1]),
    }


def test_issues_per_ledger_are_bounded() -> None:
    database = example_database(claimed=False)
    database["talks"][0] = example_talk(outcomes=MAX_LEDGER_ISSUES + 10)
    for row in database["talks"][0]["pattern_observations"]["pattern_outcomes"]:
        row["outcome"] = "bogus"
    assessment = assess_database(database)
    assert assessment.ok and len(assessment.warnings) == MAX_LEDGER_ISSUES
    assert {(i.code, i.validator) for i in assessment.warnings} == {
        (LEDGER_SCHEMA_VIOLATION, "enum")
    }


def test_the_spec_example_database_reads(tmp_path: Path, capsys) -> None:
    """The published example, its sketch ledger included: read, status, no refusal."""
    database = example_database()
    database["talks"][0]["pattern_observations"] = spec_sketch_ledger()
    database["talks"][0]["pattern_score"] = 0
    db = h.write_db(tmp_path, database)
    code, report = h.invoke(capsys, "read", db)
    assert code == 0, report
    assert report["database"] == database
    assert report["warnings"]
    assert {w["code"] for w in report["warnings"]} == {LEDGER_SCHEMA_VIOLATION}
    assert all(w["path"].startswith(LEDGER) for w in report["warnings"])
    status = _status(db)
    assert status.returncode == 0, status.stdout
    (row,) = status.json["talks"]
    assert {i["code"] for i in row["evidence_issues"]} == {LEDGER_SCHEMA_VIOLATION}
    assert row["next_action"]["code"] == "persist_batch"  # its live claim comes first


def _status(db: Path) -> Any:
    return run_cli("rvault-db", "status", db, "--format", "json")


def _claim(db: Path) -> Any:
    return run_cli("rvault-db", "queue", db, "claim", "--run-id", "r1", "--batch-id", "b1",
                   "--now", "2026-08-01T09:00:00+00:00", "--limit", "1", "--apply",
                   "--expected-sha256", hashlib.sha256(db.read_bytes()).hexdigest())  # fmt: skip


def _mutate(db: Path) -> Any:
    plan = db.parent / "plan.json"
    return run_cli("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256",
                   hashlib.sha256(db.read_bytes()).hexdigest())  # fmt: skip


def _migrate(db: Path) -> Any:
    return run_cli("rvault-db", "migrate", db)


@pytest.mark.parametrize("command", [_status, _claim, _mutate, _migrate])
def test_every_command_that_assesses_the_database_still_works(tmp_path: Path, command) -> None:
    database = _database(_outcome)
    pending = {"schema_version": 5, "filename": "2026-01-01-next.md", "status": "pending"}
    database["talks"].append({**pending, "video_url": "https://youtu.be/dQw4w9WgXcQ"})
    db = h.write_db(tmp_path, database)
    h.write_json(
        tmp_path / "plan.json",
        h.plan({"kind": "set_config", "path": ["a"], "expect": {"$missing": True}, "value": 1}),
    )
    result = command(db)
    assert result.returncode == 0, result.stdout + result.stderr
    stored = json.loads(db.read_bytes())
    # the broken talk is never rewritten by another command
    assert stored["talks"][0] == database["talks"][0]
    if command is _status:
        broken, other = result.json["talks"]
        assert broken["evidence_issues"][0]["code"] == LEDGER_SCHEMA_VIOLATION
        assert broken["next_action"]["code"] == "normalize"
        assert other["evidence_issues"] == [] and other["next_action"]["code"] != "none"
    if command is _claim:
        assert stored["talks"][1]["status"] == "reprocessing-inflight"  # the other talk


def test_a_ledger_without_a_contract_is_not_schema_checked(tmp_path: Path, capsys) -> None:
    """Ledger v1 is the archival v4 shape: no registered schema, only its version is checked."""
    database = example_database(claimed=False)
    talk = database["talks"][0]
    talk["schema_version"] = 4
    talk["pattern_scoring_schema_version"] = 4
    talk["pattern_observations"] = {"evidence_schema_version": 1, "hand_kept": ["anything"]}
    code, report = h.invoke(capsys, "read", h.write_db(tmp_path, database))
    assert code == 0, report


def test_a_valid_ledger_never_reaches_python_jsonschema(monkeypatch) -> None:
    """The fast acceptance decides a valid ledger; python-jsonschema only words refusals."""
    calls: list[Any] = []
    original = schemas.schema_issues

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(schemas, "schema_issues", spy)
    database = example_database(claimed=False)
    database["talks"] = [copy.deepcopy(example_talk(f"t{i}.md", outcomes=30)) for i in range(5)]
    assert assess_database(database).ok
    assert calls == []
    database["talks"][3]["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"
    warnings = assess_database(database).warnings
    assert [i.path for i in warnings] == [
        '$["talks"][3]["pattern_observations"]["pattern_outcomes"][0]["outcome"]'
    ]
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("mutator", "path", "validator"), BROKEN, ids=[b[0].__name__ for b in BROKEN]
)
def test_the_fast_path_never_accepts_what_the_schema_refuses(mutator, path, validator) -> None:
    ledger = example_talk(outcomes=12)["pattern_observations"]
    mutator(ledger)
    assert not fast_accepts("pattern-observations", 2, ledger)
    assert not schemas.is_valid("pattern-observations", 2, ledger)
