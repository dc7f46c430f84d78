"""tracking-database and its records: tracking-db -> returns-persistence.

A real database built with ``rvault-db mutate`` (initialize_database,
set_config and every record writer) and one produced by ``rvault-db migrate``
are read the way returns-persistence will read them: through the owner read report,
validated against the registered database schema and each record against
the registered schema of its own version.
"""

from __future__ import annotations

from pathlib import Path

from _tracking_db_producer import RECORD_SCHEMAS, build_initialized, build_migrated, read_back
from rvault_contracts.schemas import schema_issues

CONSUMER = "returns-persistence"
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
    assert {edge[2] for edge in COVERS} == {CONSUMER}
