"""Identity repair lanes: ``set_source_identity``, ``set_source_rejections``,
``set_source_relation`` through ``rvault-db sources`` (expectation-bound, dry run
first), and every refusal leaving the database's bytes and inode unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import pytest
from rvault_testkit.plugin import CliResult, run_cli
from rvault_testkit.tracking_db.samples import example_talk

YT = "dQw4w9WgXcQ"
FILENAME = "2024-04-10-talk.md"
MISSING = {"$missing": True}


def _identity(**changes: Any) -> dict[str, Any]:
    identity = dict(example_talk()["source_identity"])
    identity.update(changes)
    return identity


def _vault(tmp_path: Path) -> Path:
    talk = qb.remote_talk(FILENAME, YT, title="Talk Title", date="2024-04-10")
    dup = qb.remote_talk("2024-05-01-dup.md", YT, title="Talk Title", date="2024-04-10")
    return qb.write_db(tmp_path / "vault", qb.database([talk, dup]))


def _run(db: Path, tmp_path: Path, *mutations: dict[str, Any], apply: bool) -> CliResult:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"schema_version": 1, "mutations": list(mutations)}))
    dry = run_cli("rvault-db", "sources", db, plan)
    if dry.returncode != 0 or not apply:
        return dry
    return run_cli(
        "rvault-db", "sources", db, plan, "--apply", "--expected-sha256", dry.json["input_sha256"]
    )


def _lane(kind: str, value: Any, filename: str = FILENAME, expect: Any = MISSING) -> dict:
    return {"kind": kind, "filename": filename, "expect": expect, "value": value}


def test_a_reviewed_identity_and_a_relation_make_the_preflight_pass(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    assert run_cli("rvault-db", "preflight", db).returncode == 3  # the duplicate upload
    relation = {"type": "duplicate", "target_filename": FILENAME}
    result = _run(
        db,
        tmp_path,
        _lane("set_source_identity", _identity()),
        _lane("set_source_relation", relation, "2024-05-01-dup.md"),
        apply=True,
    )
    assert result.returncode == 0, result.stdout
    talks = json.loads(db.read_bytes())["talks"]
    assert talks[0]["source_identity"] == _identity() and talks[1]["source_relation"] == relation
    assert talks[0]["status"] == "pending"  # identity is no new evidence: nothing requeued
    report = run_cli("rvault-db", "preflight", db)
    assert report.returncode == 0, report.stdout


@pytest.mark.parametrize(
    ("mutation", "code"),
    [
        (
            _lane(
                "set_source_identity",
                _identity(video_id="AbCdEfGhI_1", webpage_video_id="AbCdEfGhI_1"),
            ),
            "source_identity_video_mismatch",
        ),
        (_lane("set_source_identity", _identity(provider="vimeo")), "invalid_value"),
        (_lane("set_source_identity", _identity(), expect=None), "expectation_failed"),
        (
            _lane(
                "set_source_rejections",
                [{**example_talk()["source_rejections"][0], "url": f"https://youtu.be/{YT}"}],
            ),
            "rejected_source_active",
        ),
        (
            _lane(
                "set_source_rejections",
                [{**example_talk()["source_rejections"][0], "verified_at": "2026-02-30T09:00:00Z"}],
            ),
            "invalid_timestamp",
        ),
    ],
)
def test_a_refused_repair_leaves_the_database_as_it_was(
    tmp_path: Path, snapshot_file: Any, mutation: dict[str, Any], code: str
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    for apply in (False, True):
        result = _run(db, tmp_path, mutation, apply=apply)
        assert result.returncode == 2, result.stdout
        assert result.json["error"]["code"] == code
        assert result.json.get("hint")
        assert snapshot_file(db) == before


def test_a_rejection_follows_removing_the_active_source(tmp_path: Path) -> None:
    """The ledger's own order: drop the video, then say why it is rejected."""
    db = _vault(tmp_path)
    rejection = {**example_talk()["source_rejections"][0], "url": f"https://youtu.be/{YT}"}
    current = f"https://www.youtube.com/watch?v={YT}"
    drop = {"kind": "set_video_url", "filename": FILENAME, "expect": current, "delete": True}
    result = _run(db, tmp_path, drop, _lane("set_source_rejections", [rejection]), apply=True)
    assert result.returncode == 0, result.stdout
    talk = json.loads(db.read_bytes())["talks"][0]
    assert "video_url" not in talk and "youtube_id" not in talk
    assert talk["source_rejections"] == [rejection]


def test_a_duplicate_is_skipped_only_with_its_relation(tmp_path: Path, snapshot_file: Any) -> None:
    db = _vault(tmp_path)
    dup = "2024-05-01-dup.md"
    skip = {"kind": "set_talk_status", "filename": dup, "expect": "pending",
            "value": "skipped_duplicate"}  # fmt: skip
    before = snapshot_file(db)
    refused = _run(db, tmp_path, skip, apply=False)
    assert refused.returncode == 2
    assert refused.json["error"]["code"] == "terminal_skip_contradicted"
    assert [i["code"] for i in refused.json["issues"]] == ["duplicate_relation_missing"]
    assert refused.json.get("hint")
    assert snapshot_file(db) == before
    relation = _lane("set_source_relation", {"type": "duplicate", "target_filename": FILENAME},
                     dup)  # fmt: skip
    assert _run(db, tmp_path, relation, skip, apply=True).returncode == 0
    assert qb.read_db(db)["talks"][1]["status"] == "skipped_duplicate"
    unskip = {"kind": "set_talk_status", "filename": dup, "expect": "skipped_duplicate",
              "value": "pending"}  # fmt: skip
    assert _run(db, tmp_path, unskip, apply=True).returncode == 0
    assert qb.read_db(db)["talks"][1]["status"] == "pending"


def test_an_analysed_talks_status_is_not_a_repair(tmp_path: Path, snapshot_file: Any) -> None:
    talk = qb.processed_talk(FILENAME, 3)
    db = qb.write_db(tmp_path / "vault", qb.database([talk]))
    before = snapshot_file(db)
    for value in ("pending", "skipped_no_sources"):
        change = {"kind": "set_talk_status", "filename": FILENAME, "expect": "processed",
                  "value": value}  # fmt: skip
        refused = _run(db, tmp_path, change, apply=False)
        assert refused.returncode == 2
        assert refused.json["error"]["code"] == "status_repair_not_allowed"
        assert snapshot_file(db) == before
