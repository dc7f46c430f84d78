"""The installed console script: validate, scaffold, refusals and read-only behaviour."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import returns_testdata as td
from rvault_contracts.schemas import load_schema, schema_issues
from rvault_returns_persistence import validator
from rvault_returns_persistence.checks import protocol
from rvault_returns_persistence.checks.envelope import check_substantive_prose
from rvault_returns_persistence.database import DatabaseError, load_database
from rvault_returns_persistence.scaffold import scaffold_for

CLI = "rvault-returns"


@pytest.fixture
def vault(tmp_path: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    db, talks = td.standard_vault(tmp_path, members=2)
    return tmp_path, db, talks


def write_returns(root: Path, value: Any) -> Path:
    return td.write_json(root / "batch-returns.json", value)


def test_validate_valid_batch_exits_zero(
    cli: Callable[..., Any], vault: Any, snapshot_tree: Any
) -> None:
    root, db, talks = vault
    returns = [td.complete_return(t, root) for t in talks]
    path = write_returns(root, returns)
    before = snapshot_tree(root)
    result = cli(CLI, "validate", path, "--db", db)
    assert result.returncode == 0, result.stdout
    report = result.json
    assert report["ok"] is True and report["valid_count"] == 2
    assert schema_issues("returns-validation-report", 1, report) == []
    assert [g["status"] for g in report["pattern_scoring_generations"]] == ["current", "current"]
    assert report["catalog"]["source"] == "default" and len(report["catalog"]["fingerprint"]) == 64
    assert snapshot_tree(root) == before  # validation never writes


def test_validate_invalid_batch_exits_two_with_report(
    cli: Callable[..., Any], vault: Any, snapshot_tree: Any
) -> None:
    root, db, talks = vault
    returns = [td.complete_return(t, root) for t in talks]
    returns[1]["queue_claim"]["reprocess_generation"] = 7
    path = write_returns(root, returns)
    before = snapshot_tree(root)
    result = cli(CLI, "validate", path, "--db", db, "--vault-root", root)
    assert result.returncode == 2
    report = result.json
    assert schema_issues("returns-validation-report", 1, report) == []
    assert schema_issues("cli-failure", 1, report) == []
    assert report["returns"][0]["ok"] is True
    assert report["error"]["message"] == "1 of 2 returns are invalid"
    errors = report["returns"][1]["errors"]
    assert [e["code"] for e in errors] == ["queue_generation_mismatch"]
    assert errors[0]["path"] == '$[1]["queue_claim"]["reprocess_generation"]'
    assert report["returns"][1]["pattern_scoring_generation"] == {
        "status": "legacy_unbaselineable",
        "reasons": ["return_validation_failed"],
    }
    assert snapshot_tree(root) == before


def test_partial_batch_is_refused(cli: Callable[..., Any], vault: Any) -> None:
    root, db, talks = vault
    path = write_returns(root, [td.complete_return(talks[0], root)])
    result = cli(CLI, "validate", path, "--db", db)
    assert result.returncode == 2
    assert [e["code"] for e in result.json["batch_errors"]] == ["batch_membership_mismatch"]


def test_claim_that_breaks_its_contract_is_reported(cli: Callable[..., Any], vault: Any) -> None:
    root, db, talks = vault
    returns = [td.complete_return(t, root) for t in talks]
    data = json.loads(db.read_text(encoding="utf-8"))
    data["talks"][0]["_queue_claim"]["adherence_baseline"]["excluded_filenames"] = [
        talks[1]["filename"]
    ]
    td.write_json(db, data)
    result = cli(CLI, "validate", write_returns(root, returns), "--db", db)
    # The owner read (tracking-db) refuses a database whose stored claim breaks
    # its contract, so the command refuses the database itself ...
    assert result.returncode == 2
    assert schema_issues("cli-failure", 1, result.json) == []
    assert result.json["error"]["code"] == "database_invalid"
    assert result.json["owner_error"]["code"] == "member_not_excluded"
    assert result.json["owner_error"]["path"].startswith('$["talks"][0]["_queue_claim"]')
    # ... and a Database value holding such a claim is still reported on its return.
    report = validator.validate_batch(
        returns,
        db=td.unchecked_database(db),
        catalog=td.CATALOG,
        vault_root=root,
        catalog_label="default",
    )
    assert "claim_invalid" in {e["code"] for e in report["returns"][0]["errors"]}


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b'{"a": 1, "a": 2}', "returns_duplicate_key"),
        (b"[NaN]", "returns_non_finite_number"),
        (b"\xef\xbb\xbf[]", "returns_utf8_bom"),
        (b'"text"', "batch_invalid"),
    ],
)
def test_undecodable_returns_are_refused(
    cli: Callable[..., Any], vault: Any, content: bytes, code: str
) -> None:
    root, db, _ = vault
    path = root / "returns.json"
    path.write_bytes(content)
    result = cli(CLI, "validate", path, "--db", db)
    assert result.returncode == 2
    assert result.json["error"]["code"] == code
    assert schema_issues("cli-failure", 1, result.json) == []


def test_bad_database_is_refused(cli: Callable[..., Any], tmp_path: Path) -> None:
    db = tmp_path / "tracking-database.json"
    db.write_text('{"talks": [], "talks": []}', encoding="utf-8")
    returns = write_returns(tmp_path, [])
    result = cli(CLI, "validate", returns, "--db", db)
    assert result.returncode == 2 and result.json["error"]["code"] == "database_duplicate_key"
    db.write_text('{"schema_version": 2, "talks": []}', encoding="utf-8")
    future = cli(CLI, "validate", returns, "--db", db)
    assert future.returncode == 2 and future.json["error"]["code"] == "database_version_unsupported"
    missing = cli(CLI, "validate", returns, "--db", tmp_path / "absent.json")
    assert missing.returncode == 2 and missing.json["error"]["code"] == "database_unreadable"


def _symlinked(db: Path) -> None:
    target = db.with_name("real.json")
    target.write_text('{"talks": []}', encoding="utf-8")
    db.symlink_to(target)


@pytest.mark.parametrize(
    ("prepare", "code", "owner_code"),
    [
        (lambda db: None, "database_unreadable", "database_missing"),
        (_symlinked, "database_not_regular_file", "symlink_refused"),
        (lambda db: db.mkdir(), "database_not_regular_file", "not_regular_file"),
        (lambda db: db.write_bytes(b"\xef\xbb\xbf{}"), "database_utf8_bom", "utf8_bom"),
        (lambda db: db.write_text("[]"), "database_root_not_object", "root_not_object"),
        (
            lambda db: db.write_text('{"schema_version": 0, "talks": []}'),
            "database_version_unsupported",
            "version_zero_sentinel",
        ),
        (
            lambda db: db.write_text('{"schema_version": true, "talks": []}'),
            "database_version_unsupported",
            "invalid_schema_version",
        ),
        (lambda db: db.write_text('{"talks": {}}'), "database_invalid", "wrong_type"),
        (
            lambda db: td.write_json(db, td.database([td.talk("a.md", "vid00000001")] * 2)),
            "database_invalid",
            "duplicate_talk_filename",
        ),
    ],
)
def test_owner_refusals_map_to_database_codes(
    tmp_path: Path, prepare: Callable[[Path], Any], code: str, owner_code: str
) -> None:
    """load_database reads through the tracking-db owner read; its refusals keep our codes."""
    db = tmp_path / "tracking-database.json"
    prepare(db)
    with pytest.raises(DatabaseError) as refused:
        load_database(db)
    assert (refused.value.code, refused.value.path) == (code, str(db))
    assert refused.value.context["owner_error"]["code"] == owner_code
    assert schema_issues("cli-failure", 1, refused.value.to_dict()) == []


def test_unversioned_database_without_talks_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "tracking-database.json"
    db.write_text("{}", encoding="utf-8")  # the owner accepts an unversioned empty corpus
    with pytest.raises(DatabaseError) as refused:
        load_database(db)
    assert refused.value.code == "database_invalid"
    assert refused.value.message == "the database has no talks array"


def test_custom_catalog_changes_fingerprint_and_rules(
    cli: Callable[..., Any], vault: Any, tmp_path: Path
) -> None:
    root, db, talks = vault
    catalog_dir = tmp_path / "my-catalog"
    catalog_dir.mkdir()
    for name in ("narrative-arc.json", "going-meta.json", "bookends.json"):
        (catalog_dir / name).write_bytes((td.CATALOG_DIR / name).read_bytes())
    returns = [td.complete_return(t, root) for t in talks]
    result = cli(
        CLI, "validate", write_returns(root, returns), "--db", db, "--catalog", catalog_dir
    )
    report = result.json
    assert report["catalog"]["source"] == "custom" and report["catalog"]["entry_count"] == 3
    assert report["catalog"]["fingerprint"] != td.CATALOG.fingerprint
    # the default catalog's not_evaluable rows name ids this catalog does not have
    assert result.returncode == 2
    assert "pattern_unknown" in {e["code"] for r in report["returns"] for e in r["errors"]}


def test_broken_catalog_is_refused(cli: Callable[..., Any], vault: Any, tmp_path: Path) -> None:
    root, db, _ = vault
    catalog_dir = tmp_path / "broken"
    catalog_dir.mkdir()
    (catalog_dir / "x.json").write_text('{"id": "x"}', encoding="utf-8")
    result = cli(CLI, "validate", write_returns(root, []), "--db", db, "--catalog", catalog_dir)
    assert result.returncode == 2 and result.json["error"]["code"] == "catalog_entry_invalid"


def test_scaffold_then_complete_validates(
    cli: Callable[..., Any], vault: Any, snapshot_tree: Any
) -> None:
    root, db, talks = vault
    before = snapshot_tree(root)
    result = cli(CLI, "scaffold", "--db", db, "--talk", talks[0]["filename"])
    assert result.returncode == 0, result.stdout
    skeleton = result.json
    assert snapshot_tree(root) == before
    assert skeleton["queue_claim"] == {
        "run_id": td.RUN_ID,
        "batch_id": td.BATCH_ID,
        "reprocess_generation": 1,
    }
    assert skeleton["pattern_observations"]["source_inspection"] == [
        {"source": "transcript", "line_ranges": [[1, 240]]},
        {"source": "static_slides", "page_ranges": [[1, 12]]},
        {"source": "native_deck", "page_ranges": [[1, 12]]},
    ]
    assert "applicability assessments still required" in result.stderr
    assert "if you detect one of those patterns, delete its not_evaluable row" in result.stderr
    # every field the skeleton holds comes with its meaning, the schema's description
    # (issue 25), on stderr: the skeleton itself stays a valid return
    schema = load_schema("worker-return", 5)["properties"]
    for name in skeleton:
        assert f"  {name}: {schema[name]['description']}" in result.stderr, name
    for name in skeleton["pattern_observations"]:
        meaning = schema["pattern_observations"]["properties"][name]["description"]
        assert f"  pattern_observations.{name}: {meaning}" in result.stderr, name
    reasons = {
        r["pattern_id"]: r["reason_code"] for r in skeleton["pattern_observations"]["not_evaluable"]
    }
    assert reasons["weatherman"] == "source_gate_pending_owner_review"
    assert reasons["lightsaber"] == "absence_not_authorized_by_catalog"
    assert reasons["composite-animation"] == "missing_required_source_coverage"
    assert "soft-transitions" not in reasons  # transcript covers its absence gate
    # the bare skeleton is not a finished analysis
    raw = cli(
        CLI,
        "validate",
        write_returns(root, [skeleton, td.complete_return(talks[1], root)]),
        "--db",
        db,
    )
    assert raw.returncode == 2
    assert "prose_not_substantive" in {e["code"] for e in raw.json["returns"][0]["errors"]}
    # completed with real observations (the helper fills the scaffold the same way a worker does)
    done = [td.complete_return(t, root) for t in talks]
    filled = copy.deepcopy(skeleton)
    filled["rhetoric_notes"], filled["areas_for_improvement"] = td.NOTES, td.AREAS
    filled["pattern_observations"] = done[0]["pattern_observations"]
    assert (
        filled["pattern_observations"]["source_inspection"]
        == skeleton["pattern_observations"]["source_inspection"]
    )
    ok = cli(CLI, "validate", write_returns(root, [filled, done[1]]), "--db", db)
    assert ok.returncode == 0, ok.json


def test_scaffold_refusals(cli: Callable[..., Any], tmp_path: Path) -> None:
    db_path, specs = td.corpus_vault(tmp_path)
    missing = cli(CLI, "scaffold", "--db", db_path, "--talk", "nope.md")
    assert missing.returncode == 2 and missing.json["error"]["code"] == "talk_not_found"
    # a typo names the option typed and the closest filenames (issue 25)
    real = specs["legacy3"]["filename"]
    typo = cli(CLI, "scaffold", "--db", db_path, "--talk", real[:-3] + "x.md")
    assert typo.json["error"]["path"] == "--talk"
    assert (
        typo.json["closest"][0] == real
        and f"did you mean {real!r}" in typo.json["error"]["message"]
    )
    legacy = cli(CLI, "scaffold", "--db", db_path, "--talk", specs["legacy3"]["filename"])
    assert legacy.returncode == 2 and legacy.json["error"]["code"] == "claim_not_v5"
    unclaimed = cli(CLI, "scaffold", "--db", db_path, "--talk", specs["unclaimed"]["filename"])
    assert unclaimed.returncode == 2 and unclaimed.json["error"]["code"] == "claim_not_active"


def test_scaffold_for_untrusted_video_is_partial(cli: Callable[..., Any], tmp_path: Path) -> None:
    db_path, specs = td.corpus_vault(tmp_path)
    data = json.loads(db_path.read_text(encoding="utf-8"))
    video = next(t for t in data["talks"] if t["filename"] == specs["video"]["filename"])
    video["structured_data"]["video_extraction"] = td.manifest(
        "VIDvid00001", tmp_path, trusted=False
    )
    (tmp_path / "slides" / "VIDvid00001.pdf").unlink()
    td.write_json(db_path, data)
    result = cli(CLI, "scaffold", "--db", db_path, "--talk", specs["video"]["filename"])
    assert result.returncode == 0
    skeleton = result.json
    assert skeleton["status"] == "processed_partial"
    assert skeleton["clear_fields"] == ["slides_local_path"] and "slides_local_path" not in skeleton
    assert "static_slides" not in skeleton["pattern_observations"]["evidence_sources"]


def test_schema_backstop_reports_what_rules_miss(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    db_path, specs = td.corpus_vault(tmp_path)
    ret = td.complete_return(specs["legacy4"], tmp_path, deck_slides=None, version=4)
    ret["areas_for_improvement"] = ""
    v4 = protocol.RULES[4]  # the v4 protocol without its prose rule
    kept = tuple(check for check in v4.processed if check is not check_substantive_prose)
    monkeypatch.setitem(protocol.RULES, 4, dataclasses.replace(v4, processed=kept))
    report = validator.validate_batch(
        [ret],
        db=load_database(db_path),
        catalog=td.CATALOG,
        vault_root=tmp_path,
        catalog_label="default",
    )
    errors = report["returns"][0]["errors"]
    assert [e["code"] for e in errors] == ["schema_violation"]
    assert errors[0]["path"] == '$[0]["areas_for_improvement"]'


def test_processed_video_return_needs_the_promoted_pdf(tmp_path: Path) -> None:
    db_path, specs = td.corpus_vault(tmp_path)
    ret = td.complete_return(specs["video"], tmp_path, deck_slides=None)
    db = load_database(db_path)
    ok = validator.validate_batch(
        [ret], db=db, catalog=td.CATALOG, vault_root=tmp_path, catalog_label="default"
    )
    assert ok["ok"] is True
    (tmp_path / "slides" / "VIDvid00001.pdf").unlink()
    report = validator.validate_batch(
        [ret], db=db, catalog=td.CATALOG, vault_root=tmp_path, catalog_label="default"
    )
    assert "video_artifact_not_promoted" in {e["code"] for e in report["returns"][0]["errors"]}


def test_scaffold_covers_the_downloaded_video_only(cli: Callable[..., Any], tmp_path: Path) -> None:
    db_path, specs = td.corpus_vault(tmp_path)
    name = specs["main"]["filename"]
    with_video = cli(CLI, "scaffold", "--db", db_path, "--talk", name).json
    inspection = with_video["pattern_observations"]["source_inspection"]
    assert {"source": "delivery_video", "time_ranges": [[0, 1800.0]]} in inspection
    (tmp_path / "slides-rebuild" / "main0000001" / "main0000001.mp4").unlink()
    without = cli(CLI, "scaffold", "--db", db_path, "--talk", name).json
    assert "delivery_video" not in without["pattern_observations"]["evidence_sources"]


@pytest.mark.parametrize("key", ["main", "video"])
def test_the_scaffolds_prefilled_outcomes_validate_unchanged(
    cli: Callable[..., Any], tmp_path: Path, key: str
) -> None:
    """Transcript, slides and the recording: what the scaffold pre-fills is accepted as is.

    Only the worker's own judgement is left: the prose and the applicability
    assessments the scaffold lists on stderr (issue 25).
    """
    db_path, specs = td.corpus_vault(tmp_path)
    scaffold = cli(CLI, "scaffold", "--db", db_path, "--talk", specs[key]["filename"])
    assert scaffold.returncode == 0, scaffold.stdout
    skeleton = scaffold.json
    assert "delivery_video" in skeleton["pattern_observations"]["evidence_sources"]
    result = cli(CLI, "validate", write_returns(tmp_path, [skeleton]), "--db", db_path)
    errors = result.json["returns"][0]["errors"]
    assert {e["code"] for e in errors} == {"prose_not_substantive", "applicability_missing"}
    listed = scaffold.stderr.split("applicability assessments still required for: ")[1]
    required = set(listed.strip().split(", "))
    missing = {e["message"].split()[0] for e in errors if e["code"] == "applicability_missing"}
    assert missing == required


def test_batch_split_across_claim_epochs_is_refused(cli: Callable[..., Any], vault: Any) -> None:
    root, db, talks = vault
    returns = [td.complete_return(t, root) for t in talks]
    data = json.loads(db.read_text(encoding="utf-8"))
    claim = data["talks"][1]["_queue_claim"]
    claim["claimed_at"] = claim["adherence_baseline"]["as_of"] = "2026-07-31T19:00:00+00:00"
    td.write_json(db, data)
    result = cli(CLI, "validate", write_returns(root, returns), "--db", db)
    assert result.returncode == 2
    assert {e["code"] for e in result.json["batch_errors"]} == {"batch_epoch_invalid"}
    assert all(r["ok"] for r in result.json["returns"])


def test_malformed_database_fields_are_reported_not_internal_errors(
    cli: Callable[..., Any], vault: Any, snapshot_tree: Any
) -> None:
    root, db, talks = vault
    path = write_returns(root, [td.complete_return(t, root) for t in talks])
    stored = json.loads(db.read_text(encoding="utf-8"))
    stored["pptx_catalog"] = 7
    stored["talks"][1]["_queue_claim"]["claimed_at"] = [None]
    db.write_text(json.dumps(stored), encoding="utf-8")
    before = snapshot_tree(root)
    # The owner read refuses such a database: both commands report that
    # refusal (a cli-failure naming the owner's issue), never an internal error.
    result = cli(CLI, "validate", path, "--db", db)
    assert result.returncode == 2, result.stdout
    report = result.json
    assert schema_issues("cli-failure", 1, report) == []
    assert report["error"]["code"] == "database_invalid"
    assert report["owner_error"]["path"] == '$["talks"][1]["_queue_claim"]["claimed_at"]'
    scaffold = cli(CLI, "scaffold", "--db", db, "--talk", talks[0]["filename"])
    assert scaffold.returncode == 2, scaffold.stdout
    assert scaffold.json["error"]["code"] == "database_invalid"
    assert snapshot_tree(root) == before
    # A Database value holding the malformed fields anyway: the validator
    # reports the broken claim on its return and reads no deck slide count.
    unchecked = td.unchecked_database(db)
    checked = validator.validate_batch(
        json.loads(path.read_text(encoding="utf-8")),
        db=unchecked,
        catalog=td.CATALOG,
        vault_root=root,
        catalog_label="default",
    )
    assert "claim_invalid" in [e["code"] for e in checked["returns"][1]["errors"]]
    assert unchecked.pptx_slide_count(talks[0]["pptx_path"]) is None
    skeleton, _ = scaffold_for(unchecked.talk(talks[0]["filename"]), td.CATALOG, root, None)
    assert skeleton["filename"] == talks[0]["filename"]


def test_oversized_returns_file_is_refused_unread(
    cli: Callable[..., Any], vault: Any, snapshot_file: Any
) -> None:
    from rvault_returns_persistence.commands.validate import MAX_RETURNS_BYTES

    root, db, _ = vault
    big = root / "returns.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_RETURNS_BYTES + 1)
    before = snapshot_file(db)
    result = cli(CLI, "validate", big, "--db", db)
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "returns_too_large"
    assert big.stat().st_size == MAX_RETURNS_BYTES + 1
    assert snapshot_file(db) == before
