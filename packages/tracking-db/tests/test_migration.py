"""``rvault-db migrate``: the owner preservation migration."""

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
from rvault_testkit.tracking_db.samples import example_database, example_pptx


def legacy_database() -> dict[str, Any]:
    """A schema-0 corpus: unversioned records, absent arrays, historical evidence."""
    return {
        "config": {
            "vault_root": "~/vault",
            "python_path": "/usr/bin/python3",
            "custom": {"kept": [1, 2.5]},
        },
        "talks": [
            {
                "filename": "2019-01-01-old.md",
                "title": "Old",
                "transcript_source": "manual",
                "status": "processed",
                "pattern_observations": {
                    "patterns_detected": [{"pattern_id": "x", "evidence_citations": []}]
                },
                "source_rejections": [
                    {
                        "source_type": "video",
                        "url": "https://youtu.be/AAAAAAAAAAA",
                        "reason": "wrong_delivery",
                        "evidence": "different city",
                        "verified_at": "2025-01-01T00:00:00Z",
                    }
                ],
                "legacy_only_field": None,
            },
            {
                "filename": "2018-05-05-array.md",
                "transcript_source": "none",
                "pattern_observations": [],
            },
            {
                "filename": "2017-02-02-null.md",
                "transcript_source": "whisper",
                "pattern_observations": None,
            },
            {
                "filename": "2016-03-03-claimed-before.md",
                "schema_version": 4,
                "transcript_source": "youtube_auto",
                "pattern_observations": {"evidence_schema_version": 1},
                "_queue_claim": {
                    "run_id": "r",
                    "batch_id": "b",
                    "claimed_at": "2025-01-01T00:00:00+00:00",
                    "previous_status": "pending",
                    "reprocess_generation": 1,
                    "state": "released",
                    "released_at": "2025-01-02T00:00:00+00:00",
                    "release_reason": "recovered",
                },
            },
        ],
        "pptx_catalog": [{"pptx_path": "Conf/Old.pptx", "matched": True, "visual_extracted": True}],
        "qr_codes": [{"talk_slug": "old", "qr_png_rel_path": "old-qr.png"}],
        "_comment_note": "kept as written",
    }


def test_migrate_schema_zero_dry_run_then_apply(tmp_path: Path, snapshot_file) -> None:
    legacy = legacy_database()
    db = h.write_db(tmp_path, legacy)
    original = db.read_bytes()
    dry = run_cli("rvault-db", "migrate", db)
    assert dry.returncode == 0, dry.stdout
    report = dry.json
    assert (
        report["input_sha256"] == sha256_bytes(original) and report["from_root_schema_version"] == 0
    )
    assert is_valid("db-migration-report", 1, report)
    assert db.read_bytes() == original and not (tmp_path / ".backups").exists()
    actions = {(c["action"], c["path"]) for c in report["changes"]}
    assert ("stamp_root_version", '$["schema_version"]') in actions
    assert ("upgrade_config", '$["config"]') in actions
    assert (
        "default_pptx_directory_exclusions",
        '$["config"]["pptx_directory_exclusions"]',
    ) in actions
    assert ("create_array", '$["resources"]') in actions
    assert ("stamp_record_version", '$["talks"][0]["source_rejections"][0]') in actions
    assert ("stamp_record_version", '$["talks"][3]') not in actions  # explicit v4 kept

    applied = run_cli(
        "rvault-db", "migrate", db, "--apply", "--expected-sha256", report["input_sha256"]
    )
    assert applied.returncode == 0, applied.stdout
    result = applied.json
    assert result["durability_state"] == "durable" and result["database_written"] is True
    assert is_valid("db-migration-report", 1, result)
    backup = Path(result["backup_path"])
    assert backup.parent == tmp_path / ".backups"
    assert backup.name == f"{h.DB_NAME}.{sha256_bytes(original)}.bak"
    assert backup.read_bytes() == original

    migrated = json.loads(db.read_bytes())
    expected = copy.deepcopy(legacy)
    expected["schema_version"] = 1
    expected["config"].update(
        schema_version=2,
        pptx_directory_exclusions=[".Trash", ".git", ".venv", "__pycache__", "node_modules"],
    )
    for key in ("resources", "thumbnails", "confirmed_intents", "improvement_goals"):
        expected[key] = []
    for talk in expected["talks"][:3]:
        talk["schema_version"] = 1
    expected["talks"][0]["source_rejections"][0]["schema_version"] = 1
    expected["pptx_catalog"][0]["schema_version"] = 1
    expected["qr_codes"][0]["schema_version"] = 1
    assert migrated == expected
    assert migrated["talks"][0]["legacy_only_field"] is None  # present null preserved
    assert "slide_count" not in migrated["pptx_catalog"][0]  # missing stays missing
    assert run_cli("rvault-db", "read", db).json["root_schema_version"] == 1

    before = snapshot_file(db)
    again = run_cli("rvault-db", "migrate", db)
    assert again.json["changes"] == [] and again.json["changed"] is False
    second = run_cli(
        "rvault-db", "migrate", db, "--apply", "--expected-sha256", again.json["input_sha256"]
    )
    assert second.returncode == 0
    assert (
        second.json["durability_state"] == "unchanged" and second.json["database_written"] is False
    )
    assert snapshot_file(db) == before
    assert sorted(p.name for p in (tmp_path / ".backups").iterdir()) == [backup.name]


def test_current_database_is_a_byte_and_inode_preserving_noop(
    tmp_path: Path, capsys, snapshot_file
) -> None:
    db = h.write_db(tmp_path, example_database(claimed=False))
    before = snapshot_file(db)
    code, dry = h.invoke(capsys, "migrate", db)
    assert code == 0 and dry["changes"] == []
    code, applied = h.invoke(
        capsys, "migrate", db, "--apply", "--expected-sha256", dry["input_sha256"]
    )
    assert (
        code == 0 and applied["durability_state"] == "unchanged" and applied["backup_path"] is None
    )
    assert snapshot_file(db) == before
    assert not (tmp_path / ".backups").exists()


def test_schema_one_with_config_v1_gets_only_the_config_upgrade(tmp_path: Path, capsys) -> None:
    database = example_database(claimed=False)
    database["config"]["schema_version"] = 1
    database["config"]["pptx_directory_exclusions"] = ["owner-choice"]
    db = h.write_db(tmp_path, database)
    code, dry = h.invoke(capsys, "migrate", db)
    assert code == 0
    assert [c["action"] for c in dry["changes"]] == ["upgrade_config"]
    code, _ = h.invoke(capsys, "migrate", db, "--apply", "--expected-sha256", dry["input_sha256"])
    assert code == 0
    migrated = json.loads(db.read_bytes())
    expected = copy.deepcopy(database)
    expected["config"]["schema_version"] = 2
    assert migrated == expected


def _active_claim(d: dict[str, Any]) -> None:
    d["talks"][3]["_queue_claim"]["state"] = "claimed"
    for key in ("released_at", "release_reason"):
        del d["talks"][3]["_queue_claim"][key]


@pytest.mark.parametrize(
    ("mutator", "code", "path"),
    [
        (_active_claim, "active_queue_claim", '$["talks"][3]["_queue_claim"]'),
        (lambda d: d.update(schema_version=0), "version_zero_sentinel", '$["schema_version"]'),
        (
            lambda d: d["talks"][0].update(schema_version=0),
            "version_zero_sentinel",
            '$["talks"][0]["schema_version"]',
        ),
        (
            lambda d: d["qr_codes"][0].update(schema_version=0),
            "version_zero_sentinel",
            '$["qr_codes"][0]["schema_version"]',
        ),
        (
            lambda d: d["talks"][1].update(schema_version=6),
            "unsupported_schema_version",
            '$["talks"][1]["schema_version"]',
        ),
        (
            lambda d: d["config"].update(schema_version=3),
            "unsupported_schema_version",
            '$["config"]["schema_version"]',
        ),
        (
            lambda d: d["pptx_catalog"][0].update(visual_evidence=None),
            "unknown_field",
            '$["pptx_catalog"][0]["visual_evidence"]',
        ),
        (lambda d: d.update(stray_top_level=True), "ambiguous_record", '$["stray_top_level"]'),
        (lambda d: d.pop("config"), "ambiguous_record", '$["config"]'),
        (
            lambda d: d["talks"].append(copy.deepcopy(d["talks"][0])),
            "duplicate_talk_filename",
            '$["talks"][4]["filename"]',
        ),
    ],
)
def test_refusals_happen_before_any_backup_or_write(
    tmp_path: Path, capsys, snapshot_file, mutator, code, path
) -> None:
    legacy = legacy_database()
    mutator(legacy)
    db = h.write_db(tmp_path, legacy)
    before = snapshot_file(db)
    exit_code, doc = h.invoke(
        capsys, "migrate", db, "--apply", "--expected-sha256", sha256_bytes(before.data)
    )
    h.assert_refused(exit_code, doc, code, path)
    assert snapshot_file(db) == before
    assert not (tmp_path / ".backups").exists()


def test_migration_refusal_through_console_script(tmp_path: Path, snapshot_file) -> None:
    legacy = legacy_database()
    _active_claim(legacy)
    db = h.write_db(tmp_path, legacy)
    before = snapshot_file(db)
    result = run_cli(
        "rvault-db", "migrate", db, "--apply", "--expected-sha256", sha256_bytes(before.data)
    )
    h.assert_refused(
        result.returncode, result.json, "active_queue_claim", '$["talks"][3]["_queue_claim"]'
    )
    assert snapshot_file(db) == before


def test_apply_requires_the_dry_run_digest(tmp_path: Path, capsys, snapshot_file) -> None:
    db = h.write_db(tmp_path, legacy_database())
    before = snapshot_file(db)
    h.assert_refused(*h.invoke(capsys, "migrate", db, "--apply"), "expected_sha256_required")
    h.assert_refused(
        *h.invoke(capsys, "migrate", db, "--apply", "--expected-sha256", "1" * 64),
        "expected_sha256_mismatch",
        "--expected-sha256",
    )
    h.assert_refused(
        *h.invoke(capsys, "migrate", db, "--apply", "--expected-sha256", "missing"),
        "expected_sha256_mismatch",
        "--expected-sha256",
    )
    assert snapshot_file(db) == before


def test_symlinked_backup_directory_is_refused(tmp_path: Path, capsys, snapshot_file) -> None:
    vault = tmp_path / "vault"
    elsewhere = tmp_path / "elsewhere"
    vault.mkdir()
    elsewhere.mkdir()
    (vault / ".backups").symlink_to(elsewhere, target_is_directory=True)
    db = h.write_db(vault, legacy_database())
    before = snapshot_file(db)
    code, doc = h.invoke(
        capsys, "migrate", db, "--apply", "--expected-sha256", sha256_bytes(before.data)
    )
    h.assert_refused(code, doc, "symlink_refused", "$")
    assert snapshot_file(db) == before
    assert list(elsewhere.iterdir()) == []


def test_existing_backup_with_other_bytes_is_never_overwritten(
    tmp_path: Path, capsys, snapshot_file
) -> None:
    db = h.write_db(tmp_path, legacy_database())
    before = snapshot_file(db)
    sha = sha256_bytes(before.data)
    backups = tmp_path / ".backups"
    backups.mkdir()
    squatter = backups / f"{h.DB_NAME}.{sha}.bak"
    squatter.write_bytes(b"not the original")
    code, doc = h.invoke(capsys, "migrate", db, "--apply", "--expected-sha256", sha)
    h.assert_refused(code, doc, "backup_conflict", "$")
    assert snapshot_file(db) == before
    assert squatter.read_bytes() == b"not the original"


def test_pptx_v1_is_never_promoted(tmp_path: Path, capsys) -> None:
    database = example_database(claimed=False)
    v1 = {"schema_version": 1, "pptx_path": "Old.pptx", "visual_extracted": True}
    database["pptx_catalog"] = [v1, example_pptx()]
    db = h.write_db(tmp_path, database)
    code, dry = h.invoke(capsys, "migrate", db)
    assert code == 0 and dry["changes"] == []
