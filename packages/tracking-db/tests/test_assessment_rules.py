"""Record-level rules of the owner schema assessment, one test per rule."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _db_helpers as h
from rvault_testkit.tracking_db.samples import (
    example_database,
    example_pptx,
    example_qr,
    example_talk,
)
from rvault_tracking_db.assessment import assess_database


def _db(mutator: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    database = example_database()
    mutator(database)
    return database


def _fatal(database: dict[str, Any], **kwargs: Any) -> set[tuple[str, str]]:
    return {(i.code, i.path) for i in assess_database(database, **kwargs).fatal}


def test_spec_example_is_clean() -> None:
    assessment = assess_database(example_database())
    assert assessment.ok and assessment.current and assessment.issues == ()


def test_pptx_v1_with_visual_evidence_key_is_unknown_field() -> None:
    legacy = {
        "schema_version": 1,
        "pptx_path": "a.pptx",
        "visual_extracted": False,
        "visual_evidence": None,
    }
    database = _db(lambda d: d.update(pptx_catalog=[legacy]))
    assert ("unknown_field", '$["pptx_catalog"][0]["visual_evidence"]') in _fatal(database)


@pytest.mark.parametrize(
    ("mutate", "extracted", "ok"),
    [
        (lambda r: None, True, True),
        (lambda r: None, False, False),
        (lambda r: r.update(visual_evidence=None), False, True),
        (lambda r: r.update(visual_evidence=None), True, False),
    ],
)
def test_visual_extracted_mirrors_the_receipt(mutate, extracted: bool, ok: bool) -> None:
    record = example_pptx()
    mutate(record)
    record["visual_extracted"] = extracted
    database = _db(lambda d: d.update(pptx_catalog=[record]))
    codes = _fatal(database)
    assert (
        ("visual_extracted_mismatch", '$["pptx_catalog"][0]["visual_extracted"]') in codes
    ) is not ok


@pytest.mark.parametrize(
    "breaker",
    [
        lambda e: e.update(artifact=None),  # succeeded without an artifact
        lambda e: e.update(outcome="failed"),  # failed with an artifact
        lambda e: e.update(outcome="partial"),
        lambda e: e["source_fingerprint"].update(digest="XYZ"),
        lambda e: e["artifact"].update(path="../escape.json"),
        lambda e: e.update(extra=True),
    ],
)
def test_malformed_receipt_is_a_warning_not_a_refusal(breaker, tmp_path: Path, capsys) -> None:
    record = example_pptx()
    breaker(record["visual_evidence"])
    database = _db(lambda d: d.update(pptx_catalog=[record]))
    assessment = assess_database(database)
    assert assessment.ok
    assert [w.code for w in assessment.warnings] == ["pptx_visual_evidence_malformed"]
    db = h.write_db(tmp_path, database)
    code, report = h.invoke(capsys, "read", db)
    assert code == 0
    assert report["warnings"][0]["code"] == "pptx_visual_evidence_malformed"
    assert report["warnings"][0]["path"].startswith('$["pptx_catalog"][0]["visual_evidence"]')


def test_qr_v1_artifacts_key_and_v2_rules() -> None:
    legacy = {"talk_slug": "x", "schema_version": 1, "qr_png_rel_path": "x.png", "artifacts": []}
    assert ("unknown_field", '$["qr_codes"][0]["artifacts"]') in _fatal(
        _db(lambda d: d.update(qr_codes=[legacy]))
    )
    empty = example_qr()
    empty["artifacts"] = []
    assert ("invalid_value", '$["qr_codes"][0]["artifacts"]') in _fatal(
        _db(lambda d: d.update(qr_codes=[empty]))
    )
    rootless = example_qr()
    del rootless["artifacts"][0]["path_root"]
    assert ("missing_field", '$["qr_codes"][0]["artifacts"][0]["path_root"]') in _fatal(
        _db(lambda d: d.update(qr_codes=[rootless]))
    )
    stale = example_qr()
    stale["qr_png_rel_path"] = "arc-of-ai-qr-000000.png"  # the second artifact, not the first
    assert ("qr_png_rel_path_mismatch", '$["qr_codes"][0]["qr_png_rel_path"]') in _fatal(
        _db(lambda d: d.update(qr_codes=[stale]))
    )


def test_transcript_source_absent_versus_enum_never_null() -> None:
    absent = example_talk()
    del absent["transcript_source"]
    assert assess_database(_db(lambda d: d.update(talks=[absent]))).ok
    null = example_talk()
    null["transcript_source"] = None
    assert ("null_transcript_source", '$["talks"][0]["transcript_source"]') in _fatal(
        _db(lambda d: d.update(talks=[null]))
    )
    odd = example_talk()
    odd["transcript_source"] = "unknown"
    assert ("invalid_value", '$["talks"][0]["transcript_source"]') in _fatal(
        _db(lambda d: d.update(talks=[odd]))
    )
    v1 = {"schema_version": 1, "filename": "old.md"}
    assert ("missing_field", '$["talks"][0]["transcript_source"]') in _fatal(
        _db(lambda d: d.update(talks=[v1]))
    )


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "C:vault",
        "C:\\vault",
        "\\vault",
        "\\\\?\\C:\\vault",
        "//?/C:/vault",
        "//./pipe/x",
        "vault",
        "./vault",
        "~/vault",
        "/srv/./vault",
        "/srv/../vault",
        "/srv/vault/",
        "/srv//vault",
        5,
    ],
)
def test_invalid_vault_storage_path_forms_fail_closed(value: Any) -> None:
    database = _db(lambda d: d["config"].update(vault_storage_path=value))
    assert ("invalid_vault_storage_path", '$["config"]["vault_storage_path"]') in _fatal(
        database, database_parent="/srv/vault"
    )


def test_vault_storage_path_is_a_lexical_root_assertion(tmp_path: Path, capsys) -> None:
    parent = str(tmp_path)
    assert assess_database(
        _db(lambda d: d["config"].update(vault_storage_path=parent)), database_parent=parent
    ).ok
    assert assess_database(
        _db(lambda d: d["config"].update(vault_storage_path=None)), database_parent=parent
    ).ok
    link = tmp_path / "alias"
    link.symlink_to(tmp_path)
    db = h.write_db(tmp_path, _db(lambda d: d["config"].update(vault_storage_path=str(link))))
    code, doc = h.invoke(capsys, "read", db)
    h.assert_refused(code, doc, "vault_storage_path_mismatch", '$["config"]["vault_storage_path"]')
    code, doc = h.invoke(capsys, "read", link / h.DB_NAME)
    assert code == 0, "read through the asserted (symlinked) root: lexically equal"


def test_root_v1_requires_eight_state_fields_and_explicit_record_versions() -> None:
    database = example_database()
    del database["improvement_goals"]
    assert ("missing_field", '$["improvement_goals"]') in _fatal(database)
    database = example_database()
    del database["resources"][0]["schema_version"]
    assert ("missing_schema_version", '$["resources"][0]["schema_version"]') in _fatal(database)
    database = example_database()
    database["stray"] = 1
    assert ("unknown_field", '$["stray"]') in _fatal(database)


def test_config_v2_requires_exclusions_and_v1_may_carry_them() -> None:
    database = example_database()
    del database["config"]["pptx_directory_exclusions"]
    assert ("missing_field", '$["config"]["pptx_directory_exclusions"]') in _fatal(database)
    database = example_database()
    database["config"]["schema_version"] = 1
    assert assess_database(database).ok


def test_duplicate_talk_filenames_are_ambiguous() -> None:
    database = example_database(claimed=False)
    database["talks"].append(copy.deepcopy(database["talks"][0]))
    assert ("duplicate_talk_filename", '$["talks"][1]["filename"]') in _fatal(database)


def test_goal_and_rejection_rules() -> None:
    goal = {
        "schema_version": 2,
        "id": "g",
        "issue": "i",
        "kind": "pacing",
        "status": "active",
        "baseline_provenance": {"lane": "pattern_scoring"},
    }
    codes = _fatal(_db(lambda d: d.update(improvement_goals=[goal])))
    assert ("invalid_value", '$["improvement_goals"][0]["baseline_provenance"]["lane"]') in codes
    talk = example_talk()
    talk["source_rejections"][0]["verified_at"] = "2026-07-30"
    assert ("invalid_value", '$["talks"][0]["source_rejections"][0]["verified_at"]') in _fatal(
        _db(lambda d: d.update(talks=[talk]))
    )


def test_deep_claim_rules_come_from_the_queue_owner() -> None:
    talk = example_talk(claimed=True)
    talk["_queue_claim"]["released_at"] = "2026-08-01T00:00:00+00:00"
    codes = {c for c, _ in _fatal(_db(lambda d: d.update(talks=[talk])))}
    assert codes, "a suffix field on a claimed claim must be refused"
