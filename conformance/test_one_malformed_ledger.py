"""One bad record never locks the vault: a malformed ledger affects only its talk.

A vault persisted by the real tools (``_persist_producer``: vtt-cleanup
transcripts, ``rvault-db queue claim``, ``rvault-returns persist``) has one
talk's ``pattern_observations`` broken by hand. The owner read reports it as
that talk's ``ledger_schema_violation`` warning; ``status`` shows the talk as
needing reprocessing; ``queue normalize`` requeues it; a new talk is claimed
(the baseline leaves the broken talk out) and persisted by ``rvault-returns
persist``, which reads the database through the same owner read; then the
requeued talk itself is claimed and persisted, and the vault reads clean.
"""

from __future__ import annotations

import json
from pathlib import Path

from _persist_producer import owner_transcript, persisted_vault
from _returns_producer import completed_return
from rvault_returns_persistence.catalog import load_catalog
from rvault_testkit.plugin import run_cli, run_cli_applied

NEW = "2024-03-01-c.md"
NOW = "2026-08-02T09:00:00+00:00"
LATER = "2026-08-02T10:00:00+00:00"
LAST = "2026-08-02T11:00:00+00:00"


def _applied(*args: str | Path) -> dict:
    """``rvault-db`` dry run, then ``--apply`` bound to the digest it reported."""
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    done = run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert done.returncode == 0, done.stdout + done.stderr
    return done.json


def test_a_malformed_ledger_requeues_its_talk_and_the_vault_still_claims_and_persists(
    tmp_path: Path,
) -> None:
    db, _, _ = persisted_vault(tmp_path)
    database = json.loads(db.read_bytes())
    broken = database["talks"][0]
    broken["pattern_observations"]["pattern_outcomes"][0]["outcome"] = "bogus"
    db.write_text(json.dumps(database, indent=2), encoding="utf-8")
    path = '$["talks"][0]["pattern_observations"]["pattern_outcomes"][0]["outcome"]'

    read = run_cli("rvault-db", "read", db)
    assert read.returncode == 0, read.stdout
    assert [(w["code"], w["path"]) for w in read.json["warnings"]] == [
        ("ledger_schema_violation", path)
    ]
    status = run_cli("rvault-db", "status", db, "--format", "json")
    rows = {r["filename"]: r for r in status.json["talks"]}
    assert rows[broken["filename"]]["next_action"]["code"] == "normalize"
    assert rows[database["talks"][1]["filename"]]["evidence_issues"] == []

    # a new talk: registered, then the queue normalized (which requeues the broken talk)
    transcript = owner_transcript(db.parent, NEW.removesuffix(".md"))
    _applied("add-talk", db, "--title", "C", "--conference", "Meetup", "--date", "2024-03-01",
             "--filename", NEW, "--transcript", db.parent / transcript)  # fmt: skip
    normalized = _applied("queue", db, "normalize")
    assert {"filename": broken["filename"], "path": '$["talks"][0]["status"]',
            "before_exists": True, "before": broken["status"],
            "after": "needs-reprocessing"} in normalized["changes"]  # fmt: skip

    fingerprint = load_catalog().fingerprint
    claimed = _applied("queue", db, "claim", "--run-id", "r2", "--batch-id", "b2", "--now", NOW,
                       "--talk", NEW, "--catalog-fingerprint", fingerprint)  # fmt: skip
    assert [m["filename"] for m in claimed["members"]] == [NEW]

    ret = completed_return(db, NEW)
    for lane in ("patterns_detected", "applicability_assessments"):
        for row in ret["pattern_observations"][lane]:
            for citation in row["evidence_citations"]:
                citation["quote"] = "in part 5 of the talk"
    returns = tmp_path / "returns-c.json"
    returns.write_text(json.dumps([ret]), encoding="utf-8")
    persisted = run_cli_applied("rvault-returns", "persist", db, returns, "--run-date", LATER)
    assert persisted.returncode == 0, persisted.stdout + persisted.stderr

    talks = {t["filename"]: t for t in json.loads(db.read_bytes())["talks"]}
    assert talks[NEW]["status"] in ("processed", "processed_partial")
    assert talks[NEW]["pattern_observations"]["evidence_schema_version"] == 2
    assert talks[broken["filename"]]["status"] == "needs-reprocessing"
    assert talks[broken["filename"]]["reprocess_reason"] == "evidence_ledger_invalid"

    # the requeued talk itself is reprocessed: claimed, persisted, its ledger valid again
    _applied("queue", db, "claim", "--run-id", "r3", "--batch-id", "b3", "--now", LATER,
             "--talk", broken["filename"], "--catalog-fingerprint", fingerprint)  # fmt: skip
    again = completed_return(db, broken["filename"])
    for lane in ("patterns_detected", "applicability_assessments"):
        for row in again["pattern_observations"][lane]:
            for citation in row["evidence_citations"]:
                citation["quote"] = "in part 3 of the talk"
    returns.write_text(json.dumps([again]), encoding="utf-8")
    redone = run_cli_applied("rvault-returns", "persist", db, returns, "--run-date", LAST)
    assert redone.returncode == 0, redone.stdout + redone.stderr
    read = run_cli("rvault-db", "read", db)
    assert read.returncode == 0 and read.json["warnings"] == [], read.stdout
