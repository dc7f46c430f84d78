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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.canonical import sha256_bytes
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
