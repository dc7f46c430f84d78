"""tracking-database and its records: what returns-persistence and analysis-writer refuse.

One database built by ``rvault-db mutate`` (initialize_database, set_config,
every record writer) and one by ``rvault-db migrate`` (talks, source
rejections, improvement goals) are produced once per module. Each negative
case changes one field of one record to a value its registered schema
forbids, in place (the config binds the database's absolute location), and
runs the consumers' real console scripts on it: ``rvault-returns validate``
(its database gate) and ``rvault-analysis site`` (its vault read). Both read
through ``rvault_tracking_db.api.read_database``; the declared code is the
owner finding the consumer reports (returns-persistence wraps it as
``database_invalid`` with the owner error beside it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _tracking_db_producer import DB_NAME, build_initialized, build_migrated
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

RP, AW = "returns-persistence", "analysis-writer"
COVERS = [
    ("tracking-database", "tracking-db", "returns-persistence"),
    ("tracking-database", "tracking-db", "analysis-writer"),
    ("db-config", "tracking-db", "returns-persistence"),
    ("db-config", "tracking-db", "analysis-writer"),
    ("db-talk", "tracking-db", "returns-persistence"),
    ("db-talk", "tracking-db", "analysis-writer"),
    ("db-pptx-catalog", "tracking-db", "returns-persistence"),
    ("db-pptx-catalog", "tracking-db", "analysis-writer"),
    ("db-qr-code", "tracking-db", "returns-persistence"),
    ("db-qr-code", "tracking-db", "analysis-writer"),
    ("db-resource", "tracking-db", "returns-persistence"),
    ("db-resource", "tracking-db", "analysis-writer"),
    ("db-thumbnail", "tracking-db", "returns-persistence"),
    ("db-thumbnail", "tracking-db", "analysis-writer"),
    ("db-confirmed-intent", "tracking-db", "returns-persistence"),
    ("db-confirmed-intent", "tracking-db", "analysis-writer"),
    ("db-improvement-goal", "tracking-db", "returns-persistence"),
    ("db-improvement-goal", "tracking-db", "analysis-writer"),
    ("db-source-rejection", "tracking-db", "returns-persistence"),
    ("db-source-rejection", "tracking-db", "analysis-writer"),
]
REFUSALS = {
    ("tracking-database", "tracking-db", "returns-persistence"): [
        ("database_version_unsupported", ["schema_version"], 7),
    ],
    ("tracking-database", "tracking-db", "analysis-writer"): [
        ("unsupported_schema_version", ["schema_version"], 7),
    ],
    ("db-config", "tracking-db", "returns-persistence"): [
        ("wrong_type", ["config", "pptx_directory_exclusions"], "x"),
    ],
    ("db-config", "tracking-db", "analysis-writer"): [
        ("wrong_type", ["config", "pptx_directory_exclusions"], "x"),
    ],
    ("db-talk", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["talks", 0, "transcript_source"], "bogus"),
    ],
    ("db-talk", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["talks", 0, "transcript_source"], "bogus"),
    ],
    ("db-pptx-catalog", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["pptx_catalog", 0, "slide_count"], -1),
    ],
    ("db-pptx-catalog", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["pptx_catalog", 0, "slide_count"], -1),
    ],
    ("db-qr-code", "tracking-db", "returns-persistence"): [
        ("wrong_type", ["qr_codes", 0, "short_url"], 5),
    ],
    ("db-qr-code", "tracking-db", "analysis-writer"): [
        ("wrong_type", ["qr_codes", 0, "short_url"], 5),
    ],
    ("db-resource", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["resources", 0, "item_count"], -3),
        ("missing_field", ["resources", 0, "talk_slug"], "$delete"),
    ],
    ("db-resource", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["resources", 0, "item_count"], -3),
        ("missing_field", ["resources", 0, "talk_slug"], "$delete"),
    ],
    ("db-thumbnail", "tracking-db", "returns-persistence"): [
        ("wrong_type", ["thumbnails", 0, "approved"], "yes"),
    ],
    ("db-thumbnail", "tracking-db", "analysis-writer"): [
        ("wrong_type", ["thumbnails", 0, "approved"], "yes"),
    ],
    ("db-confirmed-intent", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["confirmed_intents", 0, "intent"], " "),
    ],
    ("db-confirmed-intent", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["confirmed_intents", 0, "intent"], " "),
    ],
    ("db-improvement-goal", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["improvement_goals", 0, "status"], "bogus"),
    ],
    ("db-improvement-goal", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["improvement_goals", 0, "status"], "bogus"),
    ],
    ("db-source-rejection", "tracking-db", "returns-persistence"): [
        ("invalid_value", ["talks", 0, "source_rejections", 0, "reason"], "bogus"),
    ],
    ("db-source-rejection", "tracking-db", "analysis-writer"): [
        ("invalid_value", ["talks", 0, "source_rejections", 0, "reason"], "bogus"),
    ],
}
# Records only the migration produces (talks and what hangs off them, improvement goals).
MIGRATED = {"db-talk", "db-source-rejection", "db-improvement-goal"}


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tracking-database")
    (root / "initialized").mkdir()
    (root / "migrated").mkdir()
    (root / "empty-batch.json").write_text("[]\n", encoding="utf-8")
    return {
        "initialized": build_initialized(root / "initialized"),
        "migrated": build_migrated(root / "migrated"),
    }


def _consume(consumer: str, db: Path) -> Any:
    """The consumer's own console script over the database at ``db``."""
    if consumer == RP:
        return run_cli("rvault-returns", "validate", db.parent.parent / "empty-batch.json",
                       "--db", db)  # fmt: skip
    return run_cli("rvault-analysis", "site", db.parent / "site", "--db", db)


def _database_codes(result: Any) -> list[str]:
    return [c for c in cli_codes(result) if c not in ("returns_invalid", "batch_empty")]


@pytest.mark.parametrize("which", ["initialized", "migrated"])
def test_produced_databases_pass_schema_and_both_consumers(
    databases: dict[str, Path], which: str
) -> None:
    db = databases[which]
    assert db.name == DB_NAME
    assert schema_issues("tracking-database", 1, json.loads(db.read_bytes())) == []
    validated = run_cli("rvault-returns", "validate", db.parent.parent / "empty-batch.json",
                        "--db", db)  # fmt: skip
    # the database gate passed: what is left is the empty batch this module sends
    assert validated.returncode == 2 and validated.json["error"]["code"] == "returns_invalid"
    assert [e["code"] for e in validated.json["batch_errors"]] == ["batch_empty"]
    site = run_cli("rvault-analysis", "site", db.parent / "site", "--db", db)
    assert site.returncode == 0, site.stdout + site.stderr


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(databases: dict[str, Path], case: RefusalCase) -> None:
    db = databases["migrated" if case.artifact in MIGRATED else "initialized"]
    document = mutated(json.loads(db.read_bytes()), case)
    assert schema_issues("tracking-database", 1, document) != []
    with replaced(db, document):
        before = db.read_bytes()
        result = _consume(case.consumer, db)
        assert db.read_bytes() == before
    assert_refused(case, _database_codes(result))
