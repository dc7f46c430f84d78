"""``rvault-returns persist``: end-to-end batches and one test per refusal rule.

Every refusal asserts the database's exact bytes and inode are unchanged
(``snapshot_file``), not only the exit code.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from persist_vault import RUN_DATE, apply_request, batch, build_vault, quote, read_talk
from returns_testdata import CLAIMED_AT
from rvault_contracts.canonical import artifact_bytes, payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.persist import persist
from rvault_testkit.plugin import run_cli, run_cli_applied
from rvault_tracking_db import api as tracking


def _persist_cli(db: Path, returns: Any, *extra: str, run_date: str = RUN_DATE) -> Any:
    path = db.parent / "returns.json"
    path.write_text(json.dumps(returns, indent=2), encoding="utf-8")
    return run_cli_applied("rvault-returns", "persist", db, path, "--run-date", run_date, *extra)


def _refused(result: Any, code: str) -> dict[str, Any]:
    assert result.returncode == 2, result.stdout + result.stderr
    document = result.json
    assert document["ok"] is False
    assert document["error"]["code"] == code, document
    assert schema_issues("cli-failure", 1, document) == []
    assert document.get("hint"), "every refusal says what to do next"
    return document


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    return build_vault(tmp_path_factory.mktemp("template"), members=2)


@pytest.fixture
def vault(_template: tuple[Path, list[str]], tmp_path: Path) -> tuple[Path, list[str]]:
    """A private copy of one generated two-member vault (the owner tools run once)."""
    db, names = _template
    root = tmp_path / "vault"
    shutil.copytree(db.parent, root, symlinks=True)
    return root / db.name, names


def _tree(snapshot_tree: Any, root: Path) -> dict[str, Any]:
    """Everything below the vault except the writers' persistent lock files (by protocol)."""
    return {k: v for k, v in snapshot_tree(root).items() if not k.endswith(".lock")}


# --------------------------------------------------------------------------- end to end


def test_a_batch_persists_with_canonical_evidence_receipts_and_baseline(vault: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    result = _persist_cli(db, returns)
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert schema_issues("returns-persistence-report", 2, report) == []
    assert report["database_written"] is True and report["durability_state"] == "durable"
    assert report["output_sha256"] == payload_sha256_file(db)
    assert report["processed_date"] == RUN_DATE
    tracking.read_database(db)  # the owner read accepts what was written
    for ret, name in zip(returns, names, strict=True):
        talk = read_talk(db, name)
        assert schema_issues("db-talk", 5, talk) == []
        po = talk["pattern_observations"]
        assert schema_issues("pattern-observations", 2, po) == []
        assert talk["schema_version"] == 5
        assert talk["status"] == "processed"
        assert talk["processed_date"] == RUN_DATE
        assert talk["pattern_scoring_generation_status"] == "current"
        assert talk["pattern_scoring_generation_reasons"] == []
        assert talk["pattern_scoring_schema_version"] == 5
        assert talk["pattern_score"] == po["pattern_score"] == 1  # two patterns, one anti
        claim = talk["_queue_claim"]
        assert claim["state"] == "completed"
        assert claim["released_at"] == RUN_DATE
        assert claim["result_status"] == "processed"
        assert claim["result_payload_sha256"] == payload_sha256(ret)
        assert tracking.claim_issues(claim, filename=name) == []
        # exactly one sorted outcome row per observable catalog entry
        from persist_vault import observable_ids

        assert [r["pattern_id"] for r in po["pattern_outcomes"]] == observable_ids()
        assert po["pattern_ids"] == sorted(
            r["pattern_id"] for r in ret["pattern_observations"]["patterns_detected"]
        )
        citation = po["patterns_detected"][0]["evidence_citations"][0]
        assert citation["quote"].startswith("in chapter")
        assert citation["line_start"] == citation["line_end"] == int(citation["quote"].split()[2])
        rows = {r["source"]: r for r in po["source_inspection"]}
        assert rows["transcript"]["coverage_complete"] is True
        assert rows["transcript"]["absence_capability_reason"] == "authorized_transcript"
        assert rows["transcript"]["quality_artifact_path"].endswith(".quality.json")
        assert rows["static_slides"]["page_count"] == 12
    baseline = report["current_adherence_baseline"]
    assert tracking.baseline_issues(baseline) == []
    assert baseline["active_batch_excluded"] is False and baseline["excluded_filenames"] == []
    assert baseline["as_of"] == RUN_DATE
    assert baseline["eligible_talk_count"] == 2
    assert (baseline["raw_score_comparison_status"], baseline["pattern_score_sum"]) == (
        "available",
        2,
    )


def payload_sha256_file(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_timed_citation_gets_seconds_from_the_timing_receipt(vault: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    row = returns[0]["pattern_observations"]["patterns_detected"][0]
    row["evidence_citations"] = [
        {"source": "transcript", "channel": "timed_transcript", "quote": quote(11)}
    ]
    entry_channels = returns[0]["pattern_observations"]["patterns_detected"][0]
    assert entry_channels  # narrative-arc permits timed_transcript (checked by validation)
    result = _persist_cli(db, returns)
    assert result.returncode == 0, result.stdout
    cit = read_talk(db, names[0])["pattern_observations"]["patterns_detected"][0][
        "evidence_citations"
    ][0]
    assert (cit["line_start"], cit["start_seconds"], cit["end_seconds"]) == (11, 50.0, 54.0)
    assert cit["timing_artifact_path"].endswith(".segments.json")


def test_a_skipped_member_changes_only_status_and_lease(vault: Any) -> None:
    db, names = vault
    data = json.loads(db.read_text())
    data["talks"][1]["source_relation"] = {"type": "duplicate", "target_filename": names[0]}
    db.write_bytes(artifact_bytes(data))
    before = read_talk(db, names[1])
    returns = batch(db, names[:1])
    claim = before["_queue_claim"]
    returns.append(
        {
            "filename": names[1],
            "return_schema_version": 5,
            "queue_claim": {k: claim[k] for k in ("run_id", "batch_id", "reprocess_generation")},
            "status": "skipped_duplicate",
        }
    )
    result = _persist_cli(db, returns)
    assert result.returncode == 0, result.stdout
    after = read_talk(db, names[1])
    assert after["status"] == "skipped_duplicate"
    assert after["_queue_claim"]["result_status"] == "skipped_duplicate"
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {"status", "_queue_claim"}
    row = next(r for r in result.json["talks"] if r["filename"] == names[1])
    assert row["pattern_scoring_generation"] == {"reasons": [], "status": "not_applicable"}
    assert row["merge_contract"] == "status_only"


# --------------------------------------------------------------------------- batch gate


def test_partial_batch_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, batch(db, names[:1])), "returns_invalid")
    assert "batch_membership_mismatch" in {e["code"] for e in document["errors"]}
    assert snapshot_file(db) == before


def test_a_batch_persisted_again_says_so_with_its_receipts(vault: Any, snapshot_file: Any) -> None:
    """Not claim_not_active and "fix every error": nothing to do, and where the receipt is."""
    db, names = vault
    returns = batch(db, names)
    first = _persist_cli(db, returns)
    assert first.returncode == 0, first.stdout + first.stderr
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "batch_already_persisted")
    assert snapshot_file(db) == before
    stored = {t["filename"]: t for t in json.loads(db.read_text())["talks"]}
    assert sorted(r["filename"] for r in document["receipts"]) == sorted(names)
    for receipt in document["receipts"]:
        talk = stored[receipt["filename"]]
        assert receipt["processed_date"] == talk["processed_date"]
        assert receipt["result_payload_sha256"] == talk["_queue_claim"]["result_payload_sha256"]
    assert "nothing to do" in document["hint"]
    assert {e["code"] for e in document["errors"]} == {"return_already_persisted"}


def test_duplicate_member_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, [*returns, returns[0]]), "returns_invalid")
    assert "duplicate_return" in {e["code"] for e in document["errors"]}
    assert snapshot_file(db) == before


def test_superset_with_an_unclaimed_talk_is_refused(tmp_path: Path, snapshot_file: Any) -> None:
    db, names = build_vault(tmp_path, members=2, extra=1)
    returns = batch(db, names)
    stray = dict(returns[0], filename="2023-01-01-other-0.md")
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, [*returns, stray]), "returns_invalid")
    assert "claim_not_active" in {e["code"] for e in document["errors"]}
    assert snapshot_file(db) == before


def test_generation_mismatch_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    returns[1]["queue_claim"]["reprocess_generation"] = 7
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "returns_invalid")
    assert "queue_generation_mismatch" in {e["code"] for e in document["errors"]}
    assert snapshot_file(db) == before


def test_split_claimed_at_epoch_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    data = json.loads(db.read_text())
    claim = data["talks"][1]["_queue_claim"]
    claim["claimed_at"] = claim["adherence_baseline"]["as_of"] = "2026-07-31T19:00:00+00:00"
    db.write_bytes(artifact_bytes(data))
    returns = batch(db, names)
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "returns_invalid")
    assert "batch_epoch_invalid" in {e["code"] for e in document["errors"]}
    assert snapshot_file(db) == before


def test_lifecycle_split_batch_is_refused(vault: Any, snapshot_file: Any) -> None:
    """One member already completed: the rest cannot be finished piecemeal."""
    db, names = vault
    returns = batch(db, names)
    data = json.loads(db.read_text())
    closed = tracking.persist_write.complete_claim(
        data["talks"][1]["_queue_claim"],
        released_at=RUN_DATE,
        result_status="processed",
        result_payload_sha256="ab" * 32,
    )
    data["talks"][1]["_queue_claim"] = closed
    db.write_bytes(artifact_bytes(data))
    before = snapshot_file(db)
    result = _persist_cli(db, returns[:1])
    assert result.returncode == 2
    assert result.json["error"]["code"] in ("returns_invalid", "batch_lifecycle_split")
    assert snapshot_file(db) == before


def test_a_closed_member_of_a_v2_batch_is_a_lifecycle_split(
    tmp_path: Path, snapshot_file: Any
) -> None:
    """Claims v1/v2 carry no baseline, so only persistence sees the closed member."""
    from returns_testdata import BATCH_ID, claim_legacy

    db, names = build_vault(tmp_path, members=2)
    data = json.loads(db.read_text())
    for record in data["talks"]:
        record["_queue_claim"] = claim_legacy(2, record["filename"], batch_id=BATCH_ID)
    data["talks"][1]["_queue_claim"] = tracking.persist_write.complete_claim(
        data["talks"][1]["_queue_claim"],
        released_at=RUN_DATE,
        result_status="processed",
        result_payload_sha256="ab" * 32,
    )
    db.write_bytes(artifact_bytes(data))
    returns = batch(db, names[:1], version=2)
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "batch_lifecycle_split")
    assert names[1] in document["error"]["message"]
    assert snapshot_file(db) == before


def test_an_unmigrated_database_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    data = json.loads(db.read_text())
    del data["schema_version"]  # the historical unversioned root
    db.write_bytes(artifact_bytes(data))
    before = snapshot_file(db)
    result = _persist_cli(db, returns)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "database_requires_migration"
    assert result.json["hint"]
    assert snapshot_file(db) == before


def test_invalid_return_refuses_the_whole_batch(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    returns[1]["rhetoric_notes"] = "   "
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "returns_invalid")
    assert {e["filename"] for e in document["errors"]} == {names[1]}
    assert snapshot_file(db) == before


# ------------------------------------------------------------------- citations and artifacts


@pytest.mark.parametrize(
    ("quoted", "code"),
    [
        ("nobody ever says these words here", "citation_quote_not_found"),
        ("of this story we ask", "citation_quote_ambiguous"),
    ],
)
def test_a_quote_must_occur_exactly_once(
    vault: Any, snapshot_file: Any, quoted: str, code: str
) -> None:
    db, names = vault
    returns = batch(db, names)
    returns[0]["pattern_observations"]["patterns_detected"][0]["evidence_citations"][0]["quote"] = (
        quoted
    )
    before = snapshot_file(db)
    document = _refused(_persist_cli(db, returns), "returns_invalid")  # the gate sees it first
    quoted_errors = [e for e in document["errors"] if e["code"] == code]
    assert quoted_errors and quoted_errors[0]["path"].endswith('["quote"]')
    assert snapshot_file(db) == before


def test_a_transcript_without_a_current_quality_receipt_is_refused(
    vault: Any, snapshot_file: Any
) -> None:
    db, names = vault
    returns = batch(db, names)
    (db.parent / "transcripts" / "vid00000001.quality.json").unlink()
    before = snapshot_file(db)
    _refused(_persist_cli(db, returns), "transcript_quality_receipt_unusable")
    assert snapshot_file(db) == before


def test_a_stale_transcript_fails_closed(vault: Any, snapshot_file: Any) -> None:
    """The bytes changed after the owner bound them: the receipts no longer match."""
    db, names = vault
    returns = batch(db, names)
    transcript = db.parent / "transcripts" / "vid00000000.txt"
    transcript.write_bytes(transcript.read_bytes().replace(b"\n", b"\r\n"))
    before = snapshot_file(db)
    result = _persist_cli(db, returns)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "transcript_quality_receipt_unusable"
    assert result.json["owner_code"]  # the transcript owner's own reason
    assert snapshot_file(db) == before


def test_a_symlinked_slide_pdf_fails_closed(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    pdf = db.parent / "slides" / "drive0.pdf"
    moved = db.parent / "elsewhere.pdf"
    pdf.rename(moved)
    pdf.symlink_to(moved)
    before = snapshot_file(db)
    result = _persist_cli(db, returns)
    assert result.returncode == 2
    document = _refused(result, "returns_invalid")  # validation already sees no PDF
    assert {e["filename"] for e in document["errors"]} == {names[0]}
    assert snapshot_file(db) == before


def test_a_pdf_relocated_after_validation_fails_closed(vault: Any, snapshot_file: Any) -> None:
    """The PDF becomes a symlink between the gate and the binding: nothing is written."""
    db, names = vault
    returns = batch(db, names)
    pdf = db.parent / "slides" / "drive1.pdf"

    def fault(step: str) -> None:
        if step == "validated":
            moved = db.parent / "moved.pdf"
            pdf.rename(moved)
            pdf.symlink_to(moved)

    before = snapshot_file(db)
    from rvault_contracts.cli import Refusal

    with pytest.raises(Refusal) as refused:
        persist(apply_request(db, returns, fault=fault))
    assert refused.value.code == "slide_artifact_unverified"
    assert snapshot_file(db) == before


# --------------------------------------------------------------------------- stamps


@pytest.mark.parametrize(
    ("run_date", "code"),
    [
        ("2026-08-01", "run_date_invalid"),
        ("2026-08-01T09:00:00", "run_date_invalid"),
        ("2026-07-30T09:00:00+00:00", "run_date_before_claim"),
    ],
)
def test_the_run_stamp_is_checked(vault: Any, snapshot_file: Any, run_date: str, code: str) -> None:
    db, names = vault
    returns = batch(db, names)
    before = snapshot_file(db)
    _refused(_persist_cli(db, returns, run_date=run_date), code)
    assert snapshot_file(db) == before


def test_a_return_timestamp_must_equal_the_batch_stamp(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    returns[0]["processed_date"] = "2026-08-02T09:00:00+00:00"
    before = snapshot_file(db)
    _refused(_persist_cli(db, returns), "processed_date_mismatch")
    assert snapshot_file(db) == before


def test_a_date_only_return_value_is_advisory(vault: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    returns[0]["processed_date"] = "2026-08-01"
    result = _persist_cli(db, returns, run_date="2026-08-01T11:00:00+02:00")
    assert result.returncode == 0, result.stdout
    assert read_talk(db, names[0])["processed_date"] == RUN_DATE  # normalized to UTC
    row = next(r for r in result.json["talks"] if r["filename"] == names[0])
    assert [w["code"] for w in row["warnings"]] == ["processed_date_advisory"]


# --------------------------------------------------------------------------- faults


def test_a_fault_mid_batch_leaves_everything_as_it_was(vault: Any, snapshot_tree: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    before = _tree(snapshot_tree, db.parent)

    def fault(step: str) -> None:
        if step == f"merged:{names[1]}":
            raise RuntimeError("injected")

    with pytest.raises(RuntimeError, match="injected"):
        persist(apply_request(db, returns, fault=fault))
    assert _tree(snapshot_tree, db.parent) == before


@pytest.mark.parametrize("step", ["after_lock", "after_stage_fsync", "before_replace"])
def test_a_fault_inside_the_install_leaves_the_database_unchanged(
    vault: Any, snapshot_tree: Any, step: str
) -> None:
    db, names = vault
    returns = batch(db, names)
    before = _tree(snapshot_tree, db.parent)

    def fault(name: str) -> None:
        if name == step:
            raise OSError("injected")

    with pytest.raises(Exception, match="injected"):
        persist(apply_request(db, returns, fault=fault))
    assert _tree(snapshot_tree, db.parent) == before


def test_a_database_changed_by_another_writer_is_input_changed(
    vault: Any, snapshot_file: Any
) -> None:
    db, names = vault
    returns = batch(db, names)

    def fault(step: str) -> None:
        if step == "validated":  # another editor that ignores the lock rewrites the file
            data = db.read_bytes()
            db.unlink()
            db.write_bytes(data)

    from rvault_contracts.cli import Refusal

    with pytest.raises(Refusal) as refused:
        persist(apply_request(db, returns, fault=fault))
    assert refused.value.code == "input_changed"
    assert "validate and persist again" in refused.value.context["hint"]
    after = snapshot_file(db)
    assert read_talk(db, names[0])["_queue_claim"]["state"] == "claimed"
    assert after.data == db.read_bytes()


def test_a_symlinked_database_is_refused(vault: Any, snapshot_file: Any) -> None:
    db, names = vault
    returns = batch(db, names)
    link = db.parent / "link.json"
    link.symlink_to(db)
    before = snapshot_file(db)
    path = db.parent / "returns.json"
    path.write_text(json.dumps(returns), encoding="utf-8")
    result = run_cli("rvault-returns", "persist", link, path, "--run-date", RUN_DATE)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "database_not_regular_file"
    assert snapshot_file(db) == before


def test_claimed_at_fixture_is_the_claim_stamp() -> None:
    assert CLAIMED_AT < RUN_DATE


def test_persist_is_a_dry_run_until_applied_with_the_reviewed_digest(
    vault: Any, snapshot_file: Any
) -> None:
    """The one apply protocol of rvault-db: dry run, then --apply --expected-sha256."""
    db, names = vault
    returns = batch(db, names)
    path = db.parent / "returns.json"
    path.write_text(json.dumps(returns), encoding="utf-8")
    argv = ("rvault-returns", "persist", db, path, "--run-date", RUN_DATE)
    before = snapshot_file(db)
    dry = run_cli(*argv)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    report = dry.json
    assert schema_issues("returns-persistence-report", 2, report) == []
    assert snapshot_file(db) == before  # bytes and inode
    assert (report["mode"], report["database_written"], report["durability_state"]) == (
        "dry-run",
        False,
        "dry_run",
    )
    assert report["input_sha256"] == payload_sha256_file(db)
    assert [c["filename"] for c in report["claims_closed"]] == sorted(names)
    assert {c["result_payload_sha256"] for c in report["claims_closed"]} == {
        payload_sha256(r) for r in returns
    }
    assert report["current_adherence_baseline"]["eligible_talk_count"] == 2
    assert report["next_command"] == shlex.join(
        [*map(str, argv), "--apply", "--expected-sha256", report["input_sha256"]]
    )
    # the same codes as every rvault-db writer, each refusal leaving the bytes and inode
    for extra, code in [
        (("--apply",), "expected_sha256_required"),
        (("--expected-sha256", report["input_sha256"]), "expected_sha256_without_apply"),
        (("--apply", "--expected-sha256", "XYZ"), "invalid_expected_sha256"),
        (("--apply", "--expected-sha256", "0" * 64), "expected_sha256_mismatch"),
    ]:
        refused = _refused(run_cli(*argv, *extra), code)
        assert snapshot_file(db) == before, code
    assert refused["input_sha256"] == report["input_sha256"]
    applied = run_cli(*argv, "--apply", "--expected-sha256", report["input_sha256"])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    written = applied.json
    assert schema_issues("returns-persistence-report", 2, written) == []
    assert (written["mode"], written["database_written"], written["next_command"]) == (
        "apply",
        True,
        None,
    )
    assert written["output_sha256"] == report["output_sha256"] == payload_sha256_file(db)
    assert written["talks"] == report["talks"]
    assert written["claims_closed"] == report["claims_closed"]
    assert written["current_adherence_baseline"] == report["current_adherence_baseline"]
    # the reviewed digest is now stale: a second apply is refused and changes nothing
    after = snapshot_file(db)
    stale = run_cli(*argv, "--apply", "--expected-sha256", report["input_sha256"])
    _refused(stale, "expected_sha256_mismatch")
    assert snapshot_file(db) == after
