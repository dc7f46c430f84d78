"""The worker's side (issue item 10): --member, scaffold/validate agreement, catalog show, hints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from persist_vault import (
    batch,
    build_vault,
    persist_applied,
    quote,
    write_database,
    write_vtt_transcript,
)
from returns_testdata import AREAS, NOTES, claim_v5, database, talk
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

CLI = "rvault-returns"


@pytest.fixture(scope="module")
def _template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    return build_vault(tmp_path_factory.mktemp("worker"), members=2)


@pytest.fixture
def vault(_template: tuple[Path, list[str]], tmp_path: Path) -> tuple[Path, list[str]]:
    db, names = _template
    shutil.copytree(db.parent, tmp_path / "v", symlinks=True)
    return tmp_path / "v" / db.name, names


# --------------------------------------------------------------------------- validate --member


def test_member_mode_checks_one_return_and_warns_about_the_batch(vault: Any) -> None:
    db, names = vault
    one = db.parent / "one.json"
    one.write_text(json.dumps(batch(db, names)[0]), encoding="utf-8")
    result = run_cli(CLI, "validate", one, "--db", db, "--member", names[0])
    assert result.returncode == 0, result.stdout
    report = result.json
    assert schema_issues("returns-validation-report", 1, report) == []
    assert report["ok"] is True and report["member"] == names[0]
    assert [w["code"] for w in report["batch_warnings"]] == ["batch_membership_mismatch"]
    assert report["batch_errors"] == []
    whole = run_cli(CLI, "validate", one, "--db", db)  # without --member it is a batch error
    assert whole.returncode == 2
    assert [e["code"] for e in whole.json["batch_errors"]] == ["batch_membership_mismatch"]
    assert whole.json["hint"]


def test_member_mode_selects_the_member_from_a_whole_batch(vault: Any) -> None:
    db, names = vault
    path = db.parent / "all.json"
    path.write_text(json.dumps(batch(db, names)), encoding="utf-8")
    result = run_cli(CLI, "validate", path, "--db", db, "--member", names[1])
    assert result.returncode == 0, result.stdout
    assert [r["filename"] for r in result.json["returns"]] == [names[1]]
    missing = run_cli(CLI, "validate", path, "--db", db, "--member", "nope.md")
    assert missing.returncode == 2
    assert missing.json["error"]["code"] == "member_not_found"
    assert missing.json["hint"]


# --------------------------------------------------------------------------- scaffold agreement


def _transcript_only(root: Path) -> tuple[Path, str]:
    name = "2024-03-03-transcript-only.md"
    write_vtt_transcript(root, "tonly000001", 120)
    record = talk(name, "tonly000001", slide_source="none", _queue_claim=claim_v5([name]))
    return write_database(root, database([record])), name


def _honest_fill(scaffold: dict[str, Any], needs: list[str], result: str) -> dict[str, Any]:
    """Prose, plus one transcript-located assessment per entry the scaffold names."""
    from returns_testdata import CATALOG

    scaffold["rhetoric_notes"] = NOTES
    scaffold["areas_for_improvement"] = AREAS
    po = scaffold["pattern_observations"]
    for pid in needs:
        row: dict[str, Any] = {"pattern_id": pid, "result": result}
        if result == "not_applicable":
            row["condition_id"] = CATALOG.entries[pid].conditions[0]
        row.update(
            evidence_source="transcript",
            evidence="The complete transcript settles the catalog condition.",
            evidence_citations=[
                {"source": "transcript", "channel": "transcript", "quote": quote(5)}
            ],
        )
        po["applicability_assessments"].append(row)
    return scaffold


@pytest.mark.parametrize("result", ["applicable", "not_applicable"])
def test_a_transcript_only_scaffold_filled_honestly_validates_and_persists(
    tmp_path: Path, result: str
) -> None:
    db, name = _transcript_only(tmp_path)
    scaffold = run_cli(CLI, "scaffold", "--db", db, "--talk", name)
    assert scaffold.returncode == 0, scaffold.stdout
    skeleton = scaffold.json
    assert skeleton["status"] == "processed_partial"  # "none: transcript-only"
    needs = scaffold.stderr.split("required for:", 1)[1].strip().split(", ")
    assert "coda" in needs
    listed = {r["pattern_id"] for r in skeleton["pattern_observations"]["not_evaluable"]}
    assert "coda" not in listed
    ret = _honest_fill(skeleton, needs, result)
    path = tmp_path / "ret.json"
    path.write_text(json.dumps([ret]), encoding="utf-8")
    checked = run_cli(CLI, "validate", path, "--db", db)
    assert checked.returncode == 0, checked.stdout  # no not_evaluable row demanded for coda
    report = persist_applied(db, [ret])
    assert report["talks"][0]["status"] == "processed_partial"
    stored = json.loads(db.read_text())["talks"][0]["pattern_observations"]
    outcome = {r["pattern_id"]: r["outcome"] for r in stored["pattern_outcomes"]}
    if result == "applicable":  # applicable, but only static_slides could prove its absence
        assert outcome["coda"] == "not_evaluable"
        row = next(r for r in stored["not_evaluable"] if r["pattern_id"] == "coda")
        assert row["reason_code"] == "missing_required_source_coverage"
        assert row["required_source_groups"] == [["static_slides"]]
        assert "coda" in stored["not_evaluable_ids"]
    else:
        assert outcome["coda"] == "not_applicable"
    assert schema_issues("pattern-observations", 2, stored) == []


def test_processed_is_refused_for_a_transcript_only_return(tmp_path: Path) -> None:
    db, name = _transcript_only(tmp_path)
    scaffold = run_cli(CLI, "scaffold", "--db", db, "--talk", name)
    needs = scaffold.stderr.split("required for:", 1)[1].strip().split(", ")
    ret = _honest_fill(scaffold.json, needs, "not_applicable")
    ret["status"] = "processed"
    path = tmp_path / "ret.json"
    path.write_text(json.dumps([ret]), encoding="utf-8")
    checked = run_cli(CLI, "validate", path, "--db", db)
    assert checked.returncode == 2
    codes = {e["code"] for r in checked.json["returns"] for e in r["errors"]}
    assert codes == {"slide_source_none_requires_partial"}


def test_a_recorded_deck_is_scaffolded_as_native_deck(tmp_path: Path) -> None:
    """The deck is recorded in pptx_catalog for the talk (matched by talk_filename)."""
    name = "2024-03-04-with-deck.md"
    write_vtt_transcript(tmp_path, "deck0000001", 60)
    record = talk(name, "deck0000001", slide_source="pptx", _queue_claim=claim_v5([name]))
    deck = {
        "schema_version": 1,
        "pptx_path": "Conf/2024/Deck.pptx",
        "talk_filename": name,
        "matched": True,
        "slide_count": 14,
        "visual_extracted": False,
    }
    db = write_database(tmp_path, database([record], [deck]))
    skeleton = run_cli(CLI, "scaffold", "--db", db, "--talk", name).json
    sources = skeleton["pattern_observations"]["evidence_sources"]
    assert "native_deck" in sources
    rows = {r["source"]: r for r in skeleton["pattern_observations"]["source_inspection"]}
    assert rows["native_deck"]["page_ranges"] == [[1, 14]]


# --------------------------------------------------------------------------- catalog


def test_catalog_show_prints_one_full_entry() -> None:
    result = run_cli(CLI, "catalog", "show", "coda")
    assert result.returncode == 0, result.stdout
    entry = result.json
    assert entry["id"] == "coda" and entry["name"] == "Coda" and entry["summary"]
    assert entry["condition_ids"] == ["no-closing-captured"]
    assert entry["effective_gates"]["absence_evaluable_from"] == [["static_slides"]]
    assert entry["effective_gates"]["applicability_evaluable_from"] == [["transcript"]]
    assert entry["entry"]["not_applicable_when"][0]["condition_id"] == "no-closing-captured"


def test_catalog_full_lists_every_entry_whole() -> None:
    result = run_cli(CLI, "catalog", "--full")
    entries = result.json["entries"]
    assert len(entries) == result.json["entry_count"] == 50
    assert all({"name", "summary", "effective_gates", "condition_ids"} <= set(e) for e in entries)
    summary = run_cli(CLI, "catalog").json["entries"][0]
    assert "effective_gates" not in summary  # the default stays the short listing


def test_catalog_show_unknown_entry_has_a_hint() -> None:
    result = run_cli(CLI, "catalog", "show", "no-such-entry")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "catalog_entry_unknown"
    assert "rvault-returns catalog" in result.json["hint"]


# --------------------------------------------------------------------------- hints


def test_refusals_carry_a_hint(tmp_path: Path) -> None:
    missing_db = run_cli(CLI, "scaffold", "--db", tmp_path / "nope.json", "--talk", "x.md")
    bad_returns = tmp_path / "bad.json"
    bad_returns.write_text('{"a": 1, "a": 2}', encoding="utf-8")
    db, _ = _transcript_only(tmp_path)
    duplicate_keys = run_cli(CLI, "validate", bad_returns, "--db", db)
    bad_catalog = tmp_path / "catalog"
    bad_catalog.mkdir()
    (bad_catalog / "notes.txt").write_text("x", encoding="utf-8")
    catalog = run_cli(CLI, "catalog", "--catalog", bad_catalog)
    unknown_talk = run_cli(CLI, "scaffold", "--db", db, "--talk", "nope.md")
    stamp = run_cli(CLI, "persist", db, bad_returns, "--run-date", "yesterday")
    for result, code in (
        (missing_db, "database_unreadable"),
        (duplicate_keys, "returns_duplicate_key"),
        (catalog, "catalog_unexpected_entry"),
        (unknown_talk, "talk_not_found"),
        (stamp, "returns_duplicate_key"),
    ):
        assert result.returncode == 2, result.stdout
        document = result.json
        assert document["error"]["code"] == code, document
        assert isinstance(document.get("hint"), str) and document["hint"], document


def test_manifest_errors_name_what_is_wrong(tmp_path: Path) -> None:
    """Missing from structured_data.video_extraction, or trusted false by the owner's verdict."""
    import returns_testdata as td
    from rvault_returns_persistence import validator
    from rvault_returns_persistence.database import load_database

    db_path, specs = td.corpus_vault(tmp_path)
    ret = td.complete_return(specs["video"], tmp_path, deck_slides=None)
    missing = json.loads(json.dumps(ret))
    del missing["structured_data"]["video_extraction"]
    untrusted = json.loads(json.dumps(ret))
    untrusted["structured_data"]["video_extraction"] = td.manifest(
        "VIDvid00001", tmp_path, trusted=False
    )
    db = load_database(db_path)
    messages = {}
    for label, candidate in (("missing", missing), ("untrusted", untrusted)):
        report = validator.validate_batch(
            [candidate], db=db, catalog=td.CATALOG, vault_root=tmp_path, catalog_label="default"
        )
        messages[label] = {e["code"]: e["message"] for e in report["returns"][0]["errors"]}
    assert (
        "structured_data.video_extraction is missing"
        in messages["missing"]["video_manifest_required"]
    )
    untrusted_messages = " ".join(messages["untrusted"].values())
    assert (
        "`rvault-video validate` reports this manifest current but trusted false"
        in (messages["untrusted"]["video_manifest_untrusted"])
    ), untrusted_messages
