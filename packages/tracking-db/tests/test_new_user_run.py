"""The scripted new-user run: a three-talk vault from nothing, with no hand-written
plan and no hand edit.

init -> scan a Jekyll folder -> register a non-YouTube transcript -> add a talk
that is not on the site -> normalize -> claim -> status (both formats), every
write through the installed console script as dry run then ``--apply
--expected-sha256`` of that dry run. The database is read back after every
apply (the spec's re-read rule) and finally through the owner read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli

NOW = "2026-11-30T12:00:00+00:00"


def _db(*args: str | Path) -> dict[str, Any]:
    result = run_cli("rvault-db", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def _dry_then_apply(*args: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The protocol every writing command shares: review, then bind apply to that digest."""
    dry = _db(*args)
    assert dry["database_written"] is False
    expected = dry["input_sha256"] or "missing"
    applied = _db(*args, "--apply", "--expected-sha256", expected)
    assert applied["database_written"] is True, applied
    assert applied["durability_state"] == "durable"
    assert applied["output_sha256"] == dry["output_sha256"]
    return dry, applied


def _site(root: Path) -> Path:
    talks = root / "site" / "_talks"
    talks.mkdir(parents=True)
    (talks / "2024-04-10-first-talk.md").write_text(
        "---\ntitle: First Talk\nconference: PyCon US\ndate: 2024-04-10\n"
        "video: https://www.youtube.com/watch?v=dQw4w9WgXcQ\n---\nThe talk page.\n",
        encoding="utf-8",
    )
    (talks / "2024-05-01-infoq-talk.md").write_text(
        "---\ntitle: Streaming at Scale\nconference: QCon London\ndate: 2024-05-01\n"
        "video: https://www.infoq.com/presentations/streaming-at-scale/\n---\n",
        encoding="utf-8",
    )
    return root / "site"


def test_a_new_user_builds_a_three_talk_vault_without_hand_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # from the directory above the vault: typed paths are relative to it, stored ones
    # vault-relative
    monkeypatch.chdir(tmp_path)
    vault = tmp_path / "vault"
    (vault / "transcripts").mkdir(parents=True)
    site = _site(tmp_path)
    db = vault / "tracking-database.json"

    dry, _ = _dry_then_apply("init", vault, "--shownotes-source", site)
    assert dry["input_sha256"] is None and dry["changes"][0]["kind"] == "initialize_database"
    config = json.loads(db.read_bytes())["config"]
    assert config["shownotes"]["source"]["path_or_url"] == str(site)

    _, scanned = _dry_then_apply("scan-shownotes", db)
    assert scanned["counts"]["add"] == 2

    # A non-YouTube talk: the orchestrator registers the transcript before claiming.
    (vault / "transcripts" / "streaming-at-scale.txt").write_text(
        "Good morning everyone, today we talk about streaming at scale.\n", encoding="utf-8"
    )
    _, registered = _dry_then_apply(
        "register-transcript",
        db,
        "--talk",
        "2024-05-01-infoq-talk.md",
        "vault/transcripts/streaming-at-scale.txt",
        "--source",
        "whisper",
    )
    assert schema_issues("db-source-report", 1, registered) == []
    assert registered["plan"]["mutations"][0]["expect"] == {"$missing": True}
    caps = registered["capabilities"][0]["after"]
    assert {
        "capability": "local_transcript",
        "path": "transcripts/streaming-at-scale.txt",
        "root": "vault",
    } in caps

    (vault / "transcripts" / "meetup-2024.txt").write_text(
        "Thanks for having me at the meetup tonight, friends.\n", encoding="utf-8"
    )
    _, added = _dry_then_apply(
        "add-talk",
        db,
        "--title",
        "Lightning: Small Tools",
        "--conference",
        "Berlin Python Meetup",
        "--date",
        "2024-06-01",
        "--transcript",
        "vault/transcripts/meetup-2024.txt",
    )
    assert added["changes"][0]["filename"] == "2024-06-01-lightning-small-tools.md"

    _dry_then_apply("queue", db, "normalize")

    fingerprint = run_cli("rvault-returns", "catalog").json["fingerprint"]
    claim = ("queue", db, "claim", "--run-id", "r1", "--batch-id", "b1", "--now", NOW)
    _, claimed = _dry_then_apply(*claim, "--limit", "3", "--catalog-fingerprint", fingerprint)
    assert claimed["member_count"] == 3

    status = _db("status", db, "--format", "json")
    assert schema_issues("db-status-report", 1, status) == []
    assert status["totals"]["talks"] == 3 and status["totals"]["claimed"] == 3
    assert {row["next_action"]["code"] for row in status["talks"]} == {"persist_batch"}
    table = run_cli("rvault-db", "status", db, "--format", "table")
    assert table.returncode == 0
    lines = table.stdout.splitlines()
    assert lines[0].split()[:3] == ["TALK", "STATUS", "TRANSCRIPT"]
    assert sum("persist batch r1/b1" in line for line in lines) == 3
    # first-time processing reads as processing (the stored status is the spec's
    # reprocessing-inflight, which the JSON report keeps)
    assert "3 talks (processing 3); 3 claimed" in table.stdout
    assert [line.split()[1] for line in lines[1:4]] == ["processing"] * 3
    assert {row["status"] for row in status["talks"]} == {"reprocessing-inflight"}

    read = _db("read", db)
    assert read["sha256"] == claimed["output_sha256"]
