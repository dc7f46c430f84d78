"""tracking-database and its records: tracking-db -> returns-persistence, analysis-writer.

A real database built with ``rvault-db mutate`` (initialize_database,
set_config and every record writer) and one produced by ``rvault-db migrate``
are read the way its consumers read them: through the owner read report,
validated against the registered database schema and each record against
the registered schema of its own version.

analysis-writer has no reader yet (its command arrives with a later issue);
it is declared a consumer of the same contract and will read it through this
same schema and public api, so one module proves both edges.
"""

from __future__ import annotations

from pathlib import Path

from _tracking_db_producer import RECORD_SCHEMAS, build_initialized, build_migrated, read_back
from rvault_contracts.schemas import schema_issues

CONSUMERS = {"returns-persistence", "analysis-writer"}
COVERS = [
    ("tracking-database", "tracking-db", "returns-persistence"),
    ("db-config", "tracking-db", "returns-persistence"),
    ("db-talk", "tracking-db", "returns-persistence"),
    ("db-pptx-catalog", "tracking-db", "returns-persistence"),
    ("db-qr-code", "tracking-db", "returns-persistence"),
    ("db-resource", "tracking-db", "returns-persistence"),
    ("db-thumbnail", "tracking-db", "returns-persistence"),
    ("db-confirmed-intent", "tracking-db", "returns-persistence"),
    ("db-improvement-goal", "tracking-db", "returns-persistence"),
    ("db-source-rejection", "tracking-db", "returns-persistence"),
    ("tracking-database", "tracking-db", "analysis-writer"),
    ("db-config", "tracking-db", "analysis-writer"),
    ("db-talk", "tracking-db", "analysis-writer"),
    ("db-pptx-catalog", "tracking-db", "analysis-writer"),
    ("db-qr-code", "tracking-db", "analysis-writer"),
    ("db-resource", "tracking-db", "analysis-writer"),
    ("db-thumbnail", "tracking-db", "analysis-writer"),
    ("db-confirmed-intent", "tracking-db", "analysis-writer"),
    ("db-improvement-goal", "tracking-db", "analysis-writer"),
    ("db-source-rejection", "tracking-db", "analysis-writer"),
]


def _check_records(database: dict) -> set[str]:
    seen = {"db-config"}
    assert (
        schema_issues("db-config", database["config"]["schema_version"], database["config"]) == []
    )
    for array, artifact in RECORD_SCHEMAS.items():
        for record in database[array]:
            assert schema_issues(artifact, record["schema_version"], record) == []
            seen.add(artifact)
    for talk in database["talks"]:
        for rejection in talk.get("source_rejections", []):
            assert (
                schema_issues("db-source-rejection", rejection["schema_version"], rejection) == []
            )
            seen.add("db-source-rejection")
    return seen


def test_initialized_and_mutated_database_validates(tmp_path: Path) -> None:
    database = read_back(build_initialized(tmp_path))
    assert database["schema_version"] == 1 and database["config"]["schema_version"] == 2
    assert schema_issues("tracking-database", 1, database) == []
    seen = _check_records(database)
    assert {
        "db-pptx-catalog",
        "db-qr-code",
        "db-resource",
        "db-thumbnail",
        "db-confirmed-intent",
    } <= seen


def test_migrated_database_validates(tmp_path: Path) -> None:
    database = read_back(build_migrated(tmp_path))
    assert schema_issues("tracking-database", 1, database) == []
    seen = _check_records(database)
    assert {"db-talk", "db-source-rejection", "db-improvement-goal"} <= seen


def test_every_declared_edge_names_this_consumer() -> None:
    assert {edge[2] for edge in COVERS} == CONSUMERS
