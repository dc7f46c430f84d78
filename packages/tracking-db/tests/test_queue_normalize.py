"""``rvault-db queue DB normalize``: capabilities from the shared resolver, legacy statuses.

Dry-run is the default and prints the input SHA-256; ``--apply`` must repeat
it; a live claim's talk is never touched.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.canonical import sha256_bytes
from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.cli import main


def _normalize(db: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["queue", str(db), "normalize", *args])
    return code, json.loads(out.getvalue())


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/t.txt")
    talks = [
        qb.pending_talk(
            "local.md", transcript_path="transcripts/t.txt", transcript_source="manual"
        ),
        qb.pending_talk(
            "manual-only.md", transcript_source="manual", transcript_path="transcripts/no.txt"
        ),
        qb.pending_talk("legacy-empty.md", status="skipped_no_video"),
        qb.remote_talk("legacy-remote.md", "dQw4w9WgXcQ", status="skipped_no_transcript"),
        qb.pending_talk("escape.md", transcript_path="../outside.txt"),
        qb.remote_talk("claimed.md", "dQw4w9WgXcQ"),
    ]
    return qb.write_db(vault, qb.database(talks))


def test_dry_run_then_hash_bound_apply(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    claim = main_claim(db)
    assert claim == 0
    before = snapshot_file(db)
    code, report = _normalize(db)
    assert code == 0 and report["mode"] == "dry-run" and report["durability_state"] == "dry_run"
    assert schema_issues("queue-report", 1, report) == []
    assert snapshot_file(db) == before
    changes = {(c["filename"], c["path"].rsplit("[", 1)[1]): c["after"] for c in report["changes"]}
    assert changes[("local.md", '"source_capabilities"]')] == [
        {"capability": "local_transcript", "path": "transcripts/t.txt", "root": "vault"}
    ]
    assert changes[("manual-only.md", '"source_capabilities"]')] == []
    assert changes[("legacy-empty.md", '"status"]')] == "skipped_no_sources"
    assert ("legacy-remote.md", '"status"]') not in changes
    review = {(r["filename"], r["code"]) for r in report["review"]}
    assert ("legacy-remote.md", "legacy_status_has_sources") in review
    assert ("escape.md", "path_escapes_root") in review
    assert ("manual-only.md", "missing") in review
    assert report["skipped"] == [{"filename": "claimed.md", "reason": "live_claim"}]

    code, refused = _normalize(db, "--apply", "--expected-sha256", "0" * 64)
    assert code == 2 and refused["error"]["code"] == "expected_sha256_mismatch"
    code, refused = _normalize(db, "--apply")
    assert code == 2 and refused["error"]["code"] == "expected_sha256_required"
    assert snapshot_file(db) == before

    result = run_cli(
        "rvault-db",
        "queue",
        db,
        "normalize",
        "--apply",
        "--expected-sha256",
        report["input_sha256"],
    )
    assert result.returncode == 0, result.stdout
    applied = result.json
    assert applied["database_written"] is True and applied["durability_state"] == "durable"
    # The dry-run's output_sha256 is the digest of the bytes apply installs, not the input's.
    assert report["change_count"] > 0
    assert report["output_sha256"] != report["input_sha256"]
    assert report["output_sha256"] == applied["output_sha256"] == sha256_bytes(db.read_bytes())
    document = qb.read_db(db)
    talks = {t["filename"]: t for t in document["talks"]}
    assert talks["legacy-empty.md"]["status"] == "skipped_no_sources"
    assert talks["legacy-remote.md"]["status"] == "skipped_no_transcript"
    assert talks["legacy-remote.md"]["source_capabilities"][0]["capability"] == "remote_video"
    assert "source_capabilities" not in talks["claimed.md"]

    after = snapshot_file(db)
    code, again = _normalize(db, "--apply", "--expected-sha256", applied["output_sha256"])
    assert code == 0 and again["change_count"] == 0 and again["durability_state"] == "unchanged"
    assert snapshot_file(db) == after


def main_claim(db: Path) -> int:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        return main(
            [
                "queue",
                str(db),
                "claim",
                "--run-id",
                "r",
                "--batch-id",
                "b",
                "--now",
                "2026-07-31T18:00:00Z",
                "--talk",
                "claimed.md",
                "--apply",
                "--expected-sha256",
                sha256_bytes(db.read_bytes()),
                "--catalog-fingerprint",
                qb.FP,
            ]
        )


def test_normalize_requires_a_migrated_database(tmp_path: Path, snapshot_file) -> None:
    db = qb.write_db(tmp_path, {"talks": [{"filename": "a.md", "transcript_source": "none"}]})
    before = snapshot_file(db)
    code, report = _normalize(db)
    assert code == 2 and report["error"]["code"] == "database_requires_migration"
    assert snapshot_file(db) == before


def test_a_nul_byte_in_a_configured_root_is_a_finding_not_an_internal_error(
    tmp_path: Path, snapshot_file
) -> None:
    """``os.open`` raises ValueError (not OSError) for a NUL byte; it used to escape."""
    talks = [qb.pending_talk("a.md", pptx_path="decks/a.pptx")]
    db = qb.write_db(
        tmp_path / "vault", qb.database(talks, pptx_source_dir=str(tmp_path) + "/x\x00y")
    )
    before = snapshot_file(db)
    code, report = _normalize(db)
    assert code == 0, report
    finding = {"filename": "a.md", "path": '$["talks"][0]["pptx_path"]', "code": "root_unavailable"}
    assert finding in report["review"]
    assert snapshot_file(db) == before


def test_expected_sha256_without_apply_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    code, refused = _normalize(db, "--expected-sha256", sha256_bytes(before.data))
    assert code == 2 and refused["ok"] is False, refused
    assert (refused["error"]["code"], refused["error"]["path"]) == (
        "expected_sha256_without_apply",
        "--apply",
    )
    assert snapshot_file(db) == before


def test_contradicting_statuses_and_unusable_declarations_are_left_for_review(
    tmp_path: Path, snapshot_file
) -> None:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, "transcripts/t.txt")
    talks = [
        qb.pending_talk(
            "skipped-local.md", status="skipped_no_sources", transcript_path="transcripts/t.txt"
        ),
        qb.remote_talk("skipped-remote.md", "dQw4w9WgXcQ", status="skipped_no_sources"),
        qb.pending_talk("skipped-none.md", status="skipped_no_sources"),
        qb.pending_talk("ftp.md", video_url="ftp://example.com/talk.mp4"),
        qb.pending_talk("bare.md", slides_url="drive.google.com/file/d/1AbCdEfGhIjK/view"),
        qb.pending_talk("blank.md", transcript_path="   "),
    ]
    db = qb.write_db(vault, qb.database(talks))
    before = snapshot_file(db)
    code, report = _normalize(db)
    assert code == 0, report
    assert schema_issues("queue-report", 1, report) == []
    assert report["review"] == [
        {
            "filename": "skipped-local.md",
            "path": '$["talks"][0]["status"]',
            "code": "skipped_no_sources_has_capabilities",
        },
        {
            "filename": "skipped-remote.md",
            "path": '$["talks"][1]["status"]',
            "code": "skipped_no_sources_has_capabilities",
        },
        {"filename": "ftp.md", "path": '$["talks"][3]["video_url"]', "code": "url_not_http"},
        {"filename": "bare.md", "path": '$["talks"][4]["slides_url"]', "code": "url_not_http"},
        {"filename": "blank.md", "path": '$["talks"][5]["transcript_path"]', "code": "path_empty"},
    ]
    # a contradicted terminal status is reviewed, never rewritten
    assert not [c for c in report["changes"] if c["path"].endswith('["status"]')]
    assert snapshot_file(db) == before


def test_a_candidate_the_owner_read_would_refuse_is_never_installed(
    tmp_path: Path, snapshot_file, monkeypatch
) -> None:
    """A defensive guard: no real normalize plan produces such a candidate, so the
    per-talk plan (the streamed read's and the whole read's) is replaced by one that
    gives the first talk an invalid ``transcript_source``."""
    from rvault_tracking_db.queue import normalize as plans
    from rvault_tracking_db.queue import store
    from rvault_tracking_db.reader import read_database

    db = _vault(tmp_path)
    real_plan = plans.normalize_talk

    def breaking_plan(outcome: Any, position: int, *args: Any) -> Any:
        updated = real_plan(outcome, position, *args)
        if position == 0:
            assert updated is not None  # its capabilities are derived
            updated["transcript_source"] = "guessed"
        return updated

    monkeypatch.setattr(plans, "normalize_talk", breaking_plan)
    before = snapshot_file(db)
    expected = sha256_bytes(before.data)
    for args in ([], ["--apply", "--expected-sha256", expected]):
        code, refused = _normalize(db, *args)
        assert code == 2 and refused["ok"] is False, refused
        assert refused["error"]["code"] == "candidate_invalid"
        assert refused["error"]["path"] == '$["talks"][0]["transcript_source"]'
        assert snapshot_file(db) == before
    # the whole-database assessment (used without ``changed``) refuses the same way
    result = read_database(db)
    assert result.database is not None
    talks = list(result.database["talks"])
    talks[0] = dict(talks[0], transcript_source="guessed")
    candidate = dict(result.database, talks=talks)
    with pytest.raises(Refusal) as refusal:
        store.candidate_bytes(result, candidate)
    assert (refusal.value.code, refusal.value.path) == (
        "candidate_invalid",
        '$["talks"][0]["transcript_source"]',
    )
    assert snapshot_file(db) == before
