"""``rvault-db mutate``: typed plans, dry-run/apply hash binding, one transaction."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import is_valid
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import (
    example_confirmed_intent,
    example_database,
    example_pptx,
    example_qr,
    example_resource,
    example_thumbnail,
)

MISSING = {"$missing": True}


def _plan_file(tmp_path: Path, *mutations: dict[str, Any], name: str = "plan.json") -> Path:
    return h.write_json(tmp_path / name, h.plan(*mutations))


def _dry_then_apply(capsys, db: Path, plan: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    code, dry = h.invoke(capsys, "mutate", db, plan)
    assert code == 0, dry
    code, applied = h.invoke(
        capsys, "mutate", db, plan, "--apply", "--expected-sha256", dry["input_sha256"]
    )
    assert code == 0, applied
    return dry, applied


def _read(db: Path) -> dict[str, Any]:
    return json.loads(db.read_bytes())


def test_initialize_dry_run_then_apply_with_missing(tmp_path: Path) -> None:
    db = tmp_path / h.DB_NAME
    plan = _plan_file(
        tmp_path, {"kind": "initialize_database", "config": {"vault_root": "~/vault"}}
    )
    dry = run_cli("rvault-db", "mutate", db, plan)
    assert dry.returncode == 0, dry.stdout
    assert dry.json["mode"] == "dry-run" and dry.json["input_sha256"] is None
    assert dry.json["database_written"] is False and dry.json["durability_state"] is None
    assert not db.exists()
    refused = run_cli("rvault-db", "mutate", db, plan, "--apply")
    h.assert_refused(refused.returncode, refused.json, "expected_sha256_required")
    assert not db.exists()
    applied = run_cli("rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", "missing")
    assert applied.returncode == 0, applied.stdout
    report = applied.json
    assert report["durability_state"] == "durable" and report["database_written"] is True
    assert is_valid("db-mutation-report", 1, report) and is_valid("db-mutation-report", 1, dry.json)
    database = _read(db)
    assert database["schema_version"] == 1 and database["config"]["schema_version"] == 2
    assert database["config"]["pptx_directory_exclusions"] == [
        ".Trash",
        ".git",
        ".venv",
        "__pycache__",
        "node_modules",
    ]
    assert all(
        database[k] == []
        for k in (
            "talks",
            "pptx_catalog",
            "qr_codes",
            "resources",
            "thumbnails",
            "confirmed_intents",
            "improvement_goals",
        )
    )
    assert report["output_sha256"] == sha256_bytes(db.read_bytes())
    assert run_cli("rvault-db", "read", db).returncode == 0


def test_initialize_keeps_supplied_exclusions_and_refuses_existing(
    tmp_path: Path, capsys, snapshot_file
) -> None:
    db = tmp_path / h.DB_NAME
    plan = _plan_file(
        tmp_path,
        {"kind": "initialize_database", "config": {"pptx_directory_exclusions": ["cache"]}},
    )
    code, _ = h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", "missing")
    assert code == 0
    assert _read(db)["config"]["pptx_directory_exclusions"] == ["cache"]
    before = snapshot_file(db)
    code, doc = h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", "missing")
    h.assert_refused(code, doc, "expected_sha256_mismatch", "--expected-sha256")
    code, doc = h.invoke(capsys, "mutate", db, plan)
    h.assert_refused(code, doc, "database_exists", '$["mutations"][0]')
    assert snapshot_file(db) == before


def test_initialize_must_be_sole(tmp_path: Path, capsys) -> None:
    plan = _plan_file(
        tmp_path,
        {"kind": "initialize_database"},
        {"kind": "set_config", "path": ["a"], "expect": MISSING, "value": 1},
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", tmp_path / h.DB_NAME, plan),
        "initialize_not_sole",
        '$["mutations"]',
    )


def test_set_config_dry_run_prints_changes_and_apply_binds_hash(
    tmp_path: Path, capsys, snapshot_file
) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["shownotes", "enabled"], "expect": True, "value": False},
    )
    before = snapshot_file(db)
    code, dry = h.invoke(capsys, "mutate", db, plan)
    assert code == 0
    assert dry["input_sha256"] == sha256_bytes(before.data)
    assert dry["changes"] == [
        {
            "kind": "set_config",
            "path": ["shownotes", "enabled"],
            "before_exists": True,
            "after_exists": True,
            "changed": True,
            "before": True,
            "after": False,
        }
    ]
    assert snapshot_file(db) == before
    code, doc = h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", "0" * 64)
    h.assert_refused(code, doc, "expected_sha256_mismatch", "--expected-sha256")
    assert snapshot_file(db) == before
    code, applied = h.invoke(
        capsys, "mutate", db, plan, "--apply", "--expected-sha256", dry["input_sha256"]
    )
    assert code == 0 and applied["database_written"] is True
    assert _read(db)["config"]["shownotes"]["enabled"] is False
    assert applied["write"]["input_sha256"] == dry["input_sha256"]


@pytest.mark.parametrize(
    ("mutation", "code", "path"),
    [
        (
            {"kind": "set_config", "path": ["shownotes", "enabled"], "expect": 1, "value": False},
            "expectation_failed",
            '$["mutations"][0]["expect"]',
        ),
        (
            {
                "kind": "set_config",
                "path": ["shownotes", "enabled"],
                "expect": MISSING,
                "value": False,
            },
            "expectation_failed",
            '$["mutations"][0]["expect"]',
        ),
        (
            {"kind": "set_config", "path": ["absent"], "expect": None, "value": 1},
            "expectation_failed",
            '$["mutations"][0]["expect"]',
        ),
        (
            {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": MISSING},
            "missing_marker_as_value",
            '$["mutations"][0]["value"]',
        ),
        (
            {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": 1, "delete": True},
            "invalid_value",
            '$["mutations"][0]',
        ),
        (
            {"kind": "set_config", "path": ["x"], "expect": MISSING, "delete": 1},
            "invalid_value",
            '$["mutations"][0]["delete"]',
        ),
        (
            {"kind": "set_config", "path": ["schema_version"], "expect": 2, "value": 3},
            "owner_controlled_field",
            '$["mutations"][0]["path"]',
        ),
        (
            {"kind": "set_config", "path": ["python_path", "x"], "expect": MISSING, "value": 1},
            "config_path_not_object",
            '$["mutations"][0]["path"]',
        ),
        (
            {
                "kind": "set_config",
                "path": ["clarification_sessions_completed"],
                "expect": 0,
                "value": -1,
            },
            "invalid_value",
            '$["config"]["clarification_sessions_completed"]',
        ),
        (
            {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": 1, "note": "?"},
            "unknown_field",
            '$["mutations"][0]["note"]',
        ),
        ({"kind": "drop_everything"}, "unknown_mutation_kind", '$["mutations"][0]["kind"]'),
        # a record expectation is the exact record seen or the missing marker
        (
            {"kind": "record_resource", "record": example_resource(), "expect": None},
            "invalid_expectation",
            '$["mutations"][0]["expect"]',
        ),
        (
            {"kind": "record_thumbnail", "record": example_thumbnail(), "expect": "absent"},
            "invalid_expectation",
            '$["mutations"][0]["expect"]',
        ),
        (
            {"kind": "record_qr", "record": example_qr(), "expect": [example_qr()]},
            "invalid_expectation",
            '$["mutations"][0]["expect"]',
        ),
    ],
)
def test_set_config_refusals_leave_bytes_and_inode(
    tmp_path: Path, capsys, snapshot_file, mutation, code, path
) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = _plan_file(tmp_path, mutation)
    before = snapshot_file(db)
    sha = sha256_bytes(before.data)
    exit_code, doc = h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", sha)
    h.assert_refused(exit_code, doc, code, path)
    assert snapshot_file(db) == before


def test_refusal_through_console_script_keeps_inode(tmp_path: Path, snapshot_file) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = _plan_file(
        tmp_path, {"kind": "set_config", "path": ["python_path"], "expect": "/wrong", "value": "/x"}
    )
    before = snapshot_file(db)
    result = run_cli(
        "rvault-db", "mutate", db, plan, "--apply", "--expected-sha256", sha256_bytes(before.data)
    )
    h.assert_refused(
        result.returncode, result.json, "expectation_failed", '$["mutations"][0]["expect"]'
    )
    assert is_valid("cli-failure", 1, result.json)
    assert snapshot_file(db) == before


def test_null_is_a_present_value_and_types_are_exact(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database())
    ok = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["talks_source_dir"], "expect": MISSING, "value": None},
    )
    _dry_then_apply(capsys, db, ok)
    assert _read(db)["config"]["talks_source_dir"] is None
    again = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["talks_source_dir"], "expect": MISSING, "value": "/x"},
        name="again.json",
    )
    h.assert_refused(*h.invoke(capsys, "mutate", db, again), "expectation_failed")
    ints = _plan_file(
        tmp_path,
        {
            "kind": "set_config",
            "path": ["clarification_sessions_completed"],
            "expect": 0.0,
            "value": 1,
        },
        name="ints.json",
    )
    h.assert_refused(*h.invoke(capsys, "mutate", db, ints), "expectation_failed")


def test_idempotent_deletion_across_both_recoverable_states(
    tmp_path: Path, capsys, snapshot_file
) -> None:
    legacy = example_database()
    legacy["config"]["talks_source_dir"] = MISSING  # a legacy writer persisted the marker literally
    db = h.write_db(tmp_path, legacy)
    plan = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["talks_source_dir"], "expect": MISSING, "delete": True},
    )
    _dry, applied = _dry_then_apply(capsys, db, plan)
    assert applied["changes"][0] == {
        "kind": "set_config",
        "path": ["talks_source_dir"],
        "before_exists": True,
        "after_exists": False,
        "changed": True,
        "before": MISSING,
    }
    assert "talks_source_dir" not in _read(db)["config"]
    before = snapshot_file(db)
    _dry, applied = _dry_then_apply(capsys, db, plan)
    assert (
        applied["changes"][0]["before_exists"] is False
        and applied["changes"][0]["after_exists"] is False
    )
    assert applied["durability_state"] == "unchanged" and applied["database_written"] is False
    assert snapshot_file(db) == before
    present = example_database()
    present["config"]["talks_source_dir"] = "/still/here"
    db = h.write_db(tmp_path, present)
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan), "expectation_failed", '$["mutations"][0]["expect"]'
    )


def test_delete_with_exact_expectation(tmp_path: Path, capsys) -> None:
    database = example_database()
    database["config"]["talks_source_dir"] = "/prior/path"
    db = h.write_db(tmp_path, database)
    plan = _plan_file(
        tmp_path,
        {
            "kind": "set_config",
            "path": ["talks_source_dir"],
            "expect": "/prior/path",
            "delete": True,
        },
    )
    _dry_then_apply(capsys, db, plan)
    assert "talks_source_dir" not in _read(db)["config"]


def test_one_failed_expectation_installs_nothing(tmp_path: Path, capsys, snapshot_file) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["shownotes", "enabled"], "expect": True, "value": False},
        {"kind": "record_resource", "record": example_resource(), "expect": MISSING},
    )
    before = snapshot_file(db)
    code, doc = h.invoke(
        capsys, "mutate", db, plan, "--apply", "--expected-sha256", sha256_bytes(before.data)
    )
    h.assert_refused(code, doc, "expectation_failed", '$["mutations"][1]["expect"]')
    assert snapshot_file(db) == before


def test_plan_strict_decoding(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = tmp_path / "plan.json"
    cases = [
        (b'{"schema_version": 1, "schema_version": 1, "mutations": []}', "duplicate_key"),
        (
            b'{"schema_version": 1, "mutations": [{"kind": "set_config", "path": ["a"],'
            b' "expect": NaN, "value": 1}]}',
            "non_finite_number",
        ),
        (
            b'{"schema_version": 1, "mutations": [{"kind": "set_config", "path": ["a"],'
            b' "expect": {"$missing": true}, "value": 1e400}]}',
            "non_finite_number",
        ),
        (b'{"schema_version": 1, "mutations": []}', "invalid_value"),
        (
            b'{"schema_version": true, "mutations": [{"kind": "initialize_database"}]}',
            "unsupported_schema_version",
        ),
        (b'{"schema_version": 1, "mutations": [], "note": 1}', "unknown_field"),
        (
            b'{"schema_version": 1, "mutations": [{"kind": "set_config", "path": ["a"],'
            b' "expect": "\\udc00", "value": 1}]}',
            "unpaired_surrogate",
        ),
    ]
    for raw, code in cases:
        plan.write_bytes(raw)
        h.assert_refused(*h.invoke(capsys, "mutate", db, plan), code)
    h.assert_refused(*h.invoke(capsys, "mutate", db, tmp_path / "none.json"), "plan_unreadable")


def test_an_endless_plan_is_refused_with_bounded_memory(
    tmp_path: Path, capsys, snapshot_tree
) -> None:
    """``mutate DB /dev/zero`` used to read until MemoryError (an internal error);
    a device is now refused before a byte is read, and an oversized regular file
    (sparse, so the test writes nothing real) after the capped read."""
    db = h.write_db(tmp_path, example_database())
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    before = snapshot_tree(tmp_path)
    h.assert_refused(*h.invoke(capsys, "mutate", db, "/dev/zero"), "plan_not_regular_file")
    h.assert_refused(*h.invoke(capsys, "mutate", db, huge), "plan_too_large", "$")
    assert snapshot_tree(tmp_path) == before


def test_a_fifo_plan_is_refused_at_once(tmp_path: Path, snapshot_tree) -> None:
    """``mutate DB FIFO`` used to hang waiting for a writer; now exit 2 immediately."""
    import os

    vault = tmp_path / "vault"
    vault.mkdir()
    db = h.write_db(vault, example_database())
    fifo = tmp_path / "plan.fifo"  # outside the snapshot: reading it would block the test
    os.mkfifo(fifo)
    before = snapshot_tree(vault)
    result = run_cli("rvault-db", "mutate", db, fifo, timeout=30)
    h.assert_refused(result.returncode, result.json, "plan_not_regular_file")
    assert result.json["hint"]
    assert snapshot_tree(vault) == before


def test_expected_sha_argument_rules(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database())
    plan = _plan_file(
        tmp_path, {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": 1}
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan, "--expected-sha256", "missing"),
        "expected_sha256_without_apply",
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", "ABC"),
        "invalid_expected_sha256",
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan, "--apply", "--expected-sha256", "missing"),
        "expected_sha256_mismatch",
    )


def test_mutation_requires_current_root(tmp_path: Path, capsys, snapshot_file) -> None:
    db = h.write_db(tmp_path, {"config": {}, "talks": []})
    plan = _plan_file(
        tmp_path, {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": 1}
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan), "database_requires_migration", '$["schema_version"]'
    )


def test_storage_path_repair_sequence(tmp_path: Path, capsys) -> None:
    broken = example_database()
    broken["config"]["vault_storage_path"] = "C:vault"
    db = h.write_db(tmp_path, broken)
    h.assert_refused(*h.invoke(capsys, "read", db), "invalid_vault_storage_path")
    other = _plan_file(
        tmp_path,
        {"kind": "set_config", "path": ["x"], "expect": MISSING, "value": 1},
        name="o.json",
    )
    h.assert_refused(*h.invoke(capsys, "mutate", db, other), "invalid_vault_storage_path")
    wrong = _plan_file(
        tmp_path,
        {
            "kind": "set_config",
            "path": ["vault_storage_path"],
            "expect": "C:vault",
            "value": "/elsewhere",
        },
        name="w.json",
    )
    h.assert_refused(*h.invoke(capsys, "mutate", db, wrong), "vault_storage_path_mismatch")
    repair = _plan_file(
        tmp_path,
        {
            "kind": "set_config",
            "path": ["vault_storage_path"],
            "expect": "C:vault",
            "value": str(tmp_path),
        },
    )
    _dry_then_apply(capsys, db, repair)
    code, report = h.invoke(capsys, "read", db)
    assert code == 0 and report["database"]["config"]["vault_storage_path"] == str(tmp_path)


RECORDS = [
    ("record_pptx", example_pptx, "pptx_catalog"),
    ("record_resource", example_resource, "resources"),
    ("record_thumbnail", example_thumbnail, "thumbnails"),
    ("record_confirmed_intent", example_confirmed_intent, "confirmed_intents"),
    ("record_qr", example_qr, "qr_codes"),
]


@pytest.mark.parametrize(("kind", "build", "array"), RECORDS)
def test_record_kinds_insert_and_update(
    tmp_path: Path, capsys, kind: str, build, array: str
) -> None:
    database = example_database()
    database[array] = []
    db = h.write_db(tmp_path, database)
    record = build()
    _dry_then_apply(
        capsys, db, _plan_file(tmp_path, {"kind": kind, "record": record, "expect": MISSING})
    )
    assert _read(db)[array] == [record]
    updated = copy.deepcopy(record)
    if kind == "record_pptx":
        updated["slide_count"] = 61
    elif kind == "record_resource":
        updated.update(item_count=13, category_breakdown={"urls": 8, "repos": 3, "books_papers": 2})
    elif kind == "record_thumbnail":
        updated["approved"] = False
    elif kind == "record_confirmed_intent":
        updated["note"] = "changed"
    else:
        updated["updated_at"] = "2026-05-01"
    stale = _plan_file(
        tmp_path, {"kind": kind, "record": updated, "expect": MISSING}, name="stale.json"
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, stale), "expectation_failed", '$["mutations"][0]["expect"]'
    )
    _dry_then_apply(
        capsys,
        db,
        _plan_file(tmp_path, {"kind": kind, "record": updated, "expect": record}, name="u.json"),
    )
    assert _read(db)[array] == [updated]


@pytest.mark.parametrize(
    ("kind", "record", "code", "path"),
    [
        (
            "record_pptx",
            dict(example_pptx(), schema_version=1),
            "invalid_schema_version",
            '$["mutations"][0]["record"]["schema_version"]',
        ),
        (
            "record_pptx",
            dict(example_pptx(), schema_version=True),
            "invalid_schema_version",
            '$["mutations"][0]["record"]["schema_version"]',
        ),
        (
            "record_pptx",
            dict(example_pptx(), schema_version=3),
            "invalid_schema_version",
            '$["mutations"][0]["record"]["schema_version"]',
        ),
        (
            "record_pptx",
            dict(
                example_pptx(),
                visual_evidence=dict(example_pptx()["visual_evidence"], artifact=None),
            ),
            "invalid_visual_evidence",
            '$["mutations"][0]["record"]["visual_evidence"]["artifact"]',
        ),
        (
            "record_pptx",
            dict(example_pptx(), visual_extracted=False),
            "visual_extracted_mismatch",
            '$["mutations"][0]["record"]["visual_extracted"]',
        ),
        (
            "record_resource",
            dict(example_resource(), item_count=11),
            "category_count_mismatch",
            '$["mutations"][0]["record"]["item_count"]',
        ),
        (
            "record_resource",
            dict(example_resource(), schema_version=1.0),
            "invalid_schema_version",
            '$["mutations"][0]["record"]["schema_version"]',
        ),
        (
            "record_qr",
            dict(example_qr(), qr_png_rel_path="other.png"),
            "qr_png_rel_path_mismatch",
            '$["mutations"][0]["record"]["qr_png_rel_path"]',
        ),
        (
            "record_qr",
            dict(example_qr(), artifacts=[]),
            "invalid_value",
            '$["mutations"][0]["record"]["artifacts"]',
        ),
        (
            "record_thumbnail",
            dict(example_thumbnail(), dimensions="wide"),
            "invalid_value",
            '$["mutations"][0]["record"]["dimensions"]',
        ),
        (
            "record_confirmed_intent",
            dict(example_confirmed_intent(), extra=1),
            "unknown_field",
            '$["mutations"][0]["record"]["extra"]',
        ),
    ],
)
def test_record_writer_refusals(
    tmp_path: Path, capsys, snapshot_file, kind, record, code, path
) -> None:
    database = example_database()
    db = h.write_db(tmp_path, database)
    before = snapshot_file(db)
    plan = _plan_file(tmp_path, {"kind": kind, "record": record, "expect": MISSING})
    h.assert_refused(
        *h.invoke(
            capsys, "mutate", db, plan, "--apply", "--expected-sha256", sha256_bytes(before.data)
        ),
        code,
        path,
    )
    assert snapshot_file(db) == before


def _reviewed(fields: dict[str, Any], filename: str = "2024-04-10-talk-slug.md") -> dict[str, Any]:
    return {"kind": "apply_reviewed_metadata", "filename": filename, "fields": fields}


def test_reviewed_metadata_only_field_keeps_status(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database(claimed=False))
    plan = _plan_file(
        tmp_path, _reviewed({"title": {"expect": "Talk Title", "value": "Corrected Title"}})
    )
    _, applied = _dry_then_apply(capsys, db, plan)
    talk = _read(db)["talks"][0]
    assert (
        talk["title"] == "Corrected Title"
        and talk["status"] == "processed"
        and talk["reprocess_generation"] == 1
    )
    assert applied["changes"][0]["status_transition"] is None
    assert applied["changes"][0]["fields"][0]["classification"] == "metadata_only"


def test_reviewed_invalidating_field_moves_talk_to_reprocessing(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database(claimed=False))
    new_url = "https://www.youtube.com/watch?v=abcdefghijk"
    plan = _plan_file(
        tmp_path,
        _reviewed(
            {
                "video_url": {
                    "expect": "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                    "value": new_url,
                },
                "youtube_id": {"expect": "dQw4w9WgXcQ", "value": "abcdefghijk"},
            }
        ),
    )
    _, applied = _dry_then_apply(capsys, db, plan)
    talk = _read(db)["talks"][0]
    assert talk["status"] == "needs-reprocessing"
    assert talk["reprocess_reason"] == "reviewed_metadata_invalidated_analysis"
    assert talk["reprocess_generation"] == 2
    assert applied["changes"][0]["status_transition"] == {
        "from": "processed",
        "to": "needs-reprocessing",
        "reprocess_reason": "reviewed_metadata_invalidated_analysis",
        "reprocess_generation": 2,
        "invalidating_fields": ["video_url", "youtube_id"],
    }


def test_reviewed_same_value_is_not_an_invalidation(tmp_path: Path, capsys, snapshot_file) -> None:
    db = h.write_db(tmp_path, example_database(claimed=False))
    plan = _plan_file(
        tmp_path, _reviewed({"youtube_id": {"expect": "dQw4w9WgXcQ", "value": "dQw4w9WgXcQ"}})
    )
    before = snapshot_file(db)
    _, applied = _dry_then_apply(capsys, db, plan)
    assert applied["durability_state"] == "unchanged"
    assert snapshot_file(db) == before


@pytest.mark.parametrize(
    ("database", "fields", "code", "path"),
    [
        (
            example_database(claimed=False),
            {"status": {"expect": "processed", "value": "pending"}},
            "field_not_writable",
            '$["mutations"][0]["fields"]["status"]',
        ),
        (
            example_database(claimed=True),
            {"title": {"expect": "Talk Title", "value": "T"}},
            "active_queue_claim",
            '$["talks"][0]["_queue_claim"]',
        ),
        (
            example_database(claimed=False),
            {"date": {"expect": "2024-04-10", "value": "April 2024"}},
            "invalid_value",
            '$["mutations"][0]["fields"]["date"]["value"]',
        ),
        (
            example_database(claimed=False),
            {"title": {"expect": "Wrong", "value": "T"}},
            "expectation_failed",
            '$["mutations"][0]["fields"]["title"]["expect"]',
        ),
    ],
)
def test_reviewed_metadata_refusals(
    tmp_path: Path, capsys, snapshot_file, database, fields, code, path
) -> None:
    db = h.write_db(tmp_path, database)
    before = snapshot_file(db)
    plan = _plan_file(tmp_path, _reviewed(fields))
    h.assert_refused(
        *h.invoke(
            capsys, "mutate", db, plan, "--apply", "--expected-sha256", sha256_bytes(before.data)
        ),
        code,
        path,
    )
    assert snapshot_file(db) == before


def test_unknown_talk(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, example_database(claimed=False))
    plan = _plan_file(
        tmp_path, _reviewed({"title": {"expect": "x", "value": "y"}}, filename="nope.md")
    )
    h.assert_refused(
        *h.invoke(capsys, "mutate", db, plan), "talk_not_found", '$["mutations"][0]["filename"]'
    )


def test_plan_from_stdin_and_apply_race_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = h.write_db(tmp_path, example_database())
    raw = json.dumps(
        h.plan(
            {
                "kind": "set_config",
                "path": ["python_path"],
                "expect": "/path/to/python3",
                "value": "/usr/bin/python3",
            }
        )
    ).encode()
    dry = run_cli("rvault-db", "mutate", db, "-", input_bytes=raw)
    assert dry.returncode == 0, dry.stdout
    # Someone else changes the database after the dry run.
    changed = example_database()
    changed["config"]["python_path"] = "/opt/python3"
    h.write_db(tmp_path, changed)
    before = snapshot_file(db)
    result = run_cli(
        "rvault-db",
        "mutate",
        db,
        "-",
        "--apply",
        "--expected-sha256",
        dry.json["input_sha256"],
        input_bytes=raw,
    )
    h.assert_refused(
        result.returncode, result.json, "expected_sha256_mismatch", "--expected-sha256"
    )
    assert snapshot_file(db) == before


def test_many_set_config_mutations_copy_the_config_once_and_keep_exact_receipts() -> None:
    """Each set_config used to deep-copy the whole (growing) config: 8000 mutations took
    ~18 s. The plan now copies it once; the input value and every receipt stay exact."""
    from rvault_tracking_db.mutations import decode_plan
    from rvault_tracking_db.mutations.engine import apply_plan

    database = example_database()
    pristine = copy.deepcopy(database)
    mutations = [
        {"kind": "set_config", "path": ["n", f"k{i}"], "expect": MISSING, "value": i}
        for i in range(300)
    ]
    mutations += [
        {"kind": "set_config", "path": ["n", "k1"], "expect": 1, "value": {"v": [1]}},
        {"kind": "set_config", "path": ["n", "k1", "v"], "expect": [1], "value": [2]},
        {"kind": "set_config", "path": ["n", "k1"], "expect": {"v": [2]}, "delete": True},
    ]
    plan = decode_plan(json.dumps({"schema_version": 1, "mutations": mutations}).encode())
    candidate, changes = apply_plan(database, plan)
    assert database == pristine  # the input is never modified
    assert candidate["config"]["n"] == {f"k{i}": i for i in range(300) if i != 1}
    assert [c.get("before") for c in changes[-3:]] == [1, [1], {"v": [2]}]
    assert [c["after_exists"] for c in changes[-3:]] == [True, True, False]


def test_many_record_upserts_index_the_array_once_with_the_same_results() -> None:
    """Each upsert used to copy and json-scan the whole array (8000 records: ~17 s)."""
    from rvault_tracking_db.mutations import decode_plan
    from rvault_tracking_db.mutations.engine import apply_plan
    from rvault_tracking_db.mutations.plan import PlanRefusal

    database = example_database()
    pristine = copy.deepcopy(database)
    stored = database["thumbnails"][0]
    records = []
    for i in range(200):
        record = copy.deepcopy(stored)
        record["talk_slug"] = f"s{i}"
        records.append(record)
    changed = dict(records[5], dimensions="640x360")
    mutations = [{"kind": "record_thumbnail", "record": r, "expect": MISSING} for r in records]
    mutations.append({"kind": "record_thumbnail", "record": changed, "expect": records[5]})
    mutations.append({"kind": "record_thumbnail", "record": stored, "expect": stored})
    plan = decode_plan(json.dumps({"schema_version": 1, "mutations": mutations}).encode())
    candidate, changes = apply_plan(database, plan)
    assert database == pristine
    assert candidate["thumbnails"] == [stored, *records[:5], changed, *records[6:]]
    assert changes[-2]["before"] == records[5] and changes[-2]["changed"] is True
    assert changes[-1]["changed"] is False

    again = decode_plan(
        json.dumps({"schema_version": 1, "mutations": [mutations[0], mutations[0]]}).encode()
    )
    with pytest.raises(PlanRefusal) as refused:
        apply_plan(database, again)
    assert refused.value.code == "expectation_failed"

    doubled = copy.deepcopy(database)
    doubled["thumbnails"].append(copy.deepcopy(stored))
    one = decode_plan(json.dumps({"schema_version": 1, "mutations": [mutations[-1]]}).encode())
    with pytest.raises(PlanRefusal) as ambiguous:
        apply_plan(doubled, one)
    assert ambiguous.value.code == "ambiguous_record_key"
