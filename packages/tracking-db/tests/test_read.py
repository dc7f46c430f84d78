"""``rvault-db read``: no-follow strict read, assessment first, report v1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.schemas import is_valid
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import example_database


def test_read_through_console_script_reports_exact_bytes(tmp_path: Path, snapshot_file) -> None:
    db = h.write_db(tmp_path, example_database())
    before = snapshot_file(db)
    result = run_cli("rvault-db", "read", db)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert report["ok"] is True
    assert report["schema_version"] == 1
    assert report["database_path"] == str(db)
    assert report["sha256"] == sha256_bytes(db.read_bytes())
    assert report["database"] == example_database()
    assert report["root_schema_version"] == 1
    assert is_valid("db-read-report", 1, report)
    assert snapshot_file(db) == before


def test_read_accepts_legacy_schema_zero(tmp_path: Path, capsys) -> None:
    legacy = {
        "config": {"vault_root": "~/v"},
        "talks": [{"filename": "a.md", "transcript_source": "none"}],
    }
    db = h.write_db(tmp_path, legacy)
    code, report = h.invoke(capsys, "read", db)
    assert code == 0
    assert report["root_schema_version"] == 0
    assert report["database"] == legacy


def test_symlink_is_refused(tmp_path: Path, snapshot_file) -> None:
    real = h.write_db(tmp_path, example_database())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    before = snapshot_file(real)
    result = run_cli("rvault-db", "read", link)
    h.assert_refused(result.returncode, result.json, "symlink_refused", "$")
    assert snapshot_file(real) == before


def test_directory_and_missing_are_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "dir.json").mkdir()
    code, doc = h.invoke(capsys, "read", tmp_path / "dir.json")
    h.assert_refused(code, doc, "not_regular_file")
    code, doc = h.invoke(capsys, "read", tmp_path / "absent.json")
    h.assert_refused(code, doc, "database_missing", "$")


@pytest.mark.parametrize(
    ("raw", "code", "path"),
    [
        (b'{"schema_version": 1, "schema_version": 1}', "duplicate_key", "$"),
        (b'{"config": {"a": NaN}}', "non_finite_number", "$"),
        (b'{"config": {"a": 1.00000000000000000001}}', "number_not_round_trippable", "$"),
        (b"\xef\xbb\xbf{}", "utf8_bom", "$"),
        (b"[1]", "root_not_object", "$"),
        (b'{"a": "\\ud800"}', "unpaired_surrogate", '$["a"]'),
        (b'{"a":' + b"[" * 201 + b"]" * 201 + b"}", "nesting_too_deep", None),
        (b"{not json", "invalid_json", "$"),
    ],
)
def test_strict_decoding_refusals(
    tmp_path: Path, capsys, snapshot_file, raw: bytes, code: str, path
) -> None:
    db = tmp_path / h.DB_NAME
    db.write_bytes(raw)
    before = snapshot_file(db)
    exit_code, doc = h.invoke(capsys, "read", db)
    h.assert_refused(exit_code, doc, code, path)
    assert snapshot_file(db) == before


def _future(mutator):
    database = example_database()
    mutator(database)
    return database


@pytest.mark.parametrize(
    ("mutator", "path"),
    [
        (lambda d: d.update(schema_version=2), '$["schema_version"]'),
        (lambda d: d["config"].update(schema_version=3), '$["config"]["schema_version"]'),
        (lambda d: d["talks"][0].update(schema_version=6), '$["talks"][0]["schema_version"]'),
        (
            lambda d: d["pptx_catalog"][0].update(schema_version=3),
            '$["pptx_catalog"][0]["schema_version"]',
        ),
        (lambda d: d["qr_codes"][0].update(schema_version=3), '$["qr_codes"][0]["schema_version"]'),
        (
            lambda d: d["resources"][0].update(schema_version=2),
            '$["resources"][0]["schema_version"]',
        ),
        (
            lambda d: d["thumbnails"][0].update(schema_version=2),
            '$["thumbnails"][0]["schema_version"]',
        ),
        (
            lambda d: d["confirmed_intents"][0].update(schema_version=2),
            '$["confirmed_intents"][0]["schema_version"]',
        ),
        (
            lambda d: d["talks"][0]["source_rejections"][0].update(schema_version=2),
            '$["talks"][0]["source_rejections"][0]["schema_version"]',
        ),
        (
            lambda d: d["talks"][0]["_queue_claim"].update(schema_version=6),
            '$["talks"][0]["_queue_claim"]["schema_version"]',
        ),
        (
            lambda d: d["talks"][0]["_queue_claim"]["adherence_baseline"].update(schema_version=3),
            '$["talks"][0]["_queue_claim"]["adherence_baseline"]["schema_version"]',
        ),
        (
            lambda d: d["talks"][0]["pattern_observations"].update(evidence_schema_version=3),
            '$["talks"][0]["pattern_observations"]["evidence_schema_version"]',
        ),
    ],
)
def test_future_generation_anywhere_is_no_usable_prior_state(
    tmp_path: Path, capsys, mutator, path
) -> None:
    db = h.write_db(tmp_path, _future(mutator))
    code, doc = h.invoke(capsys, "read", db)
    h.assert_refused(code, doc, "unsupported_schema_version", path)


def test_future_version_refusal_through_console_script(tmp_path: Path, snapshot_file) -> None:
    db = h.write_db(tmp_path, _future(lambda d: d["talks"][0].update(schema_version=9)))
    before = snapshot_file(db)
    result = run_cli("rvault-db", "read", db)
    h.assert_refused(
        result.returncode,
        result.json,
        "unsupported_schema_version",
        '$["talks"][0]["schema_version"]',
    )
    assert is_valid("cli-failure", 1, result.json)
    assert snapshot_file(db) == before


def test_explicit_zero_and_boolean_versions_are_not_versions(tmp_path: Path, capsys) -> None:
    db = h.write_db(tmp_path, _future(lambda d: d.update(schema_version=0)))
    h.assert_refused(*h.invoke(capsys, "read", db), "version_zero_sentinel", '$["schema_version"]')
    db = h.write_db(tmp_path, _future(lambda d: d["talks"][0].update(schema_version=True)))
    h.assert_refused(
        *h.invoke(capsys, "read", db), "invalid_schema_version", '$["talks"][0]["schema_version"]'
    )
    db = h.write_db(tmp_path, _future(lambda d: d["resources"][0].update(schema_version=1.0)))
    h.assert_refused(
        *h.invoke(capsys, "read", db),
        "invalid_schema_version",
        '$["resources"][0]["schema_version"]',
    )


def test_read_relative_path_reports_lexical_absolute(tmp_path: Path, capsys, monkeypatch) -> None:
    h.write_db(tmp_path, example_database())
    monkeypatch.chdir(tmp_path)
    code, report = h.invoke(capsys, "read", h.DB_NAME)
    assert code == 0
    assert report["database_path"] == os.path.join(str(tmp_path), h.DB_NAME)  # noqa: PTH118


def test_verbatim_report_equals_the_canonical_encoding(tmp_path: Path) -> None:
    from rvault_contracts.canonical import artifact_bytes
    from rvault_tracking_db.commands.read import report_chunks
    from rvault_tracking_db.reader import read_database

    db = h.write_db(tmp_path, example_database())
    result = read_database(db)
    assert b"".join(report_chunks(result)) == artifact_bytes(result.report())


def test_non_canonical_file_still_reports_its_exact_value(tmp_path: Path, capsys) -> None:
    import json

    db = tmp_path / h.DB_NAME
    db.write_text("\n\t" + json.dumps(example_database(), ensure_ascii=True, indent=3) + "\r\n")
    code, report = h.invoke(capsys, "read", db)
    assert code == 0
    assert report["database"] == example_database()
    assert report["sha256"] == sha256_bytes(db.read_bytes())


@pytest.mark.parametrize(
    "argv",
    [
        ["read", "DB"],
        ["migrate", "DB"],
        ["mutate", "DB", "PLAN"],
        ["queue", "DB", "inspect"],
        ["queue", "DB", "normalize"],
        ["scan-shownotes", "DB"],
    ],
)
def test_a_database_path_that_is_not_utf8_is_refused_not_an_internal_error(
    tmp_path: Path, capsys, snapshot_file, argv: list[str]
) -> None:
    """Undecodable path bytes reach Python as surrogates that no JSON report can carry.

    The shared console entry point refuses such an argument before any
    command runs (as every owner tool does); the reader's own
    ``path_not_utf8`` guard covers library callers.
    """
    vault = tmp_path / os.fsdecode(b"caf\xe9")
    vault.mkdir()
    db = h.write_db(vault, {"schema_version": 1})
    plan = h.write_json(tmp_path / "plan.json", h.plan({"kind": "initialize_database"}))
    before = snapshot_file(db)
    code, document = h.invoke(capsys, *[{"DB": db, "PLAN": plan}.get(a, a) for a in argv])
    assert code == 2, document
    assert document["error"]["code"] == "argument_not_utf8"
    assert "caf\\xe9" in document["error"]["path"]
    assert snapshot_file(db) == before


def test_the_reader_refuses_an_undecodable_path_for_library_callers(tmp_path: Path) -> None:
    from rvault_tracking_db.reader import DatabaseRefusal, read_database

    vault = tmp_path / os.fsdecode(b"caf\xe9")
    vault.mkdir()
    db = h.write_db(vault, {"schema_version": 1})
    with pytest.raises(DatabaseRefusal) as refused:
        read_database(db)
    assert refused.value.code == "path_not_utf8"
    assert "caf\\xe9" in refused.value.message
