"""``rvault-db sources`` and its shortcuts: lanes, artifact checks, transitions, refusals.

Every refusal is asserted with exit 2, its stable code and the database's
bytes and inode unchanged (``snapshot_file``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from _sources_cli import apply as _apply
from _sources_cli import refused as _refused
from _sources_cli import run as _run

M = {"$missing": True}
YT = "dQw4w9WgXcQ"


def _plan(tmp_path: Path, *mutations: dict[str, Any]) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"schema_version": 1, "mutations": list(mutations)}))
    return path


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    talks = [
        qb.pending_talk("2024-01-01-infoq.md", video_url="https://www.infoq.com/x/"),
        qb.processed_talk("2023-01-01-done.md", 5, transcript_path="transcripts/done.txt"),
        qb.pending_talk("2024-02-01-skipped.md", status="skipped_no_sources"),
        qb.remote_talk("2024-03-01-yt.md", YT),
    ]
    qb.write_transcript(vault, "transcripts/done.txt")
    qb.write_transcript(vault, "transcripts/infoq.txt")
    qb.write_transcript(vault, "transcripts/new-done.txt")
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks, pptx_source_dir=str(tmp_path / "decks")))


def _talk(db: Path, name: str) -> dict[str, Any]:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == name)


def test_register_transcript_derives_capabilities_in_the_same_transaction(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    report = _apply(
        "register-transcript",
        db,
        "--talk",
        "2024-01-01-infoq.md",
        "transcripts/infoq.txt",
        "--source",
        "whisper",
    )
    talk = _talk(db, "2024-01-01-infoq.md")
    assert talk["transcript_path"] == "transcripts/infoq.txt"
    assert talk["transcript_source"] == "whisper"
    assert {"capability": "local_transcript", "path": "transcripts/infoq.txt", "root": "vault"} in (
        talk["source_capabilities"]
    )
    assert report["changes"][0]["before_exists"] is False
    assert talk["status"] == "pending"


def test_an_absolute_path_inside_the_vault_is_stored_vault_relative(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    absolute = db.parent / "transcripts" / "infoq.txt"
    _apply("register-transcript", db, "--talk", "2024-01-01-infoq.md", absolute)
    assert _talk(db, "2024-01-01-infoq.md")["transcript_path"] == "transcripts/infoq.txt"


def test_a_processed_talk_whose_source_changed_needs_reprocessing(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    report = _apply(
        "register-transcript", db, "--talk", "2023-01-01-done.md", "transcripts/new-done.txt"
    )
    talk = _talk(db, "2023-01-01-done.md")
    assert talk["status"] == "needs-reprocessing"
    assert talk["reprocess_reason"] == "source_lane_changed"
    assert talk["reprocess_generation"] == 2
    transition = report["changes"][-1]["status_transition"]
    assert transition["invalidating_fields"] == ["transcript_path"]
    assert report["plan"]["mutations"][0]["expect"] == "transcripts/done.txt"


def test_re_registering_the_same_path_is_a_no_op_that_keeps_the_inode(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    _apply("register-transcript", db, "--talk", "2023-01-01-done.md", "transcripts/done.txt")
    # the first apply only added source_capabilities; the second changes nothing at all
    before = snapshot_file(db)
    report = _apply(
        "register-transcript", db, "--talk", "2023-01-01-done.md", "transcripts/done.txt"
    )
    assert report["changed"] is False and report["durability_state"] == "unchanged"
    assert snapshot_file(db) == before
    assert _talk(db, "2023-01-01-done.md")["status"] == "processed"


def test_a_skipped_talk_that_gains_a_source_is_pending_again(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    _apply("register-transcript", db, "--talk", "2024-02-01-skipped.md", "transcripts/infoq.txt")
    assert _talk(db, "2024-02-01-skipped.md")["status"] == "pending"


@pytest.mark.parametrize(
    ("setup", "path", "code"),
    [
        (None, "transcripts/none.txt", "artifact_missing"),
        ("empty", "transcripts/empty.txt", "artifact_malformed"),
        ("link", "transcripts/link.txt", "symlink_refused"),
        ("dirlink", "linked/t.txt", "invalid_value"),  # not under transcripts/: the schema
        (None, "../outside.txt", "path_escapes_root"),  # typed from inside the vault
        (None, "/elsewhere/outside.txt", "path_escapes_root"),
    ],
)
def test_artifact_rules_refuse_and_keep_bytes_and_inode(
    tmp_path: Path, snapshot_file, setup: str | None, path: str, code: str
) -> None:
    db = _vault(tmp_path)
    transcripts = db.parent / "transcripts"
    if setup == "empty":
        (transcripts / "empty.txt").write_text("  \n")
    elif setup == "link":
        (transcripts / "link.txt").symlink_to(transcripts / "infoq.txt")
    elif setup == "dirlink":
        (db.parent / "linked").symlink_to(transcripts)
    before = snapshot_file(db)
    args = ("register-transcript", db, "--talk", "2024-01-01-infoq.md", path)
    assert _refused(_run(*args), code)["hint"]
    _refused(_run(*args, "--apply", "--expected-sha256", qb.sha(db.read_bytes())), code)
    assert snapshot_file(db) == before


def test_refusals_name_what_to_do_next(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    missing = _refused(
        _run("register-transcript", db, "--talk", "nope.md", "transcripts/infoq.txt"),
        "talk_not_found",
    )
    assert "add-talk" in missing["hint"]
    stale = _plan(
        tmp_path,
        {
            "kind": "register_transcript",
            "filename": "2023-01-01-done.md",
            "expect": M,
            "value": "transcripts/infoq.txt",
        },
    )
    document = _refused(_run("sources", db, stale), "expectation_failed")
    assert document["stored"] == "transcripts/done.txt" and "dry-run" in document["hint"]
    unknown = _plan(tmp_path, {"kind": "set_everything", "filename": "a.md"})
    document = _refused(_run("sources", db, unknown), "unknown_mutation_kind")
    assert "register_transcript" in document["valid_kinds"]
    assert "register_transcript" in document["hint"]
    assert snapshot_file(db) == before


def test_a_talk_under_a_live_claim_keeps_its_sources(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    code, dry = _run(
        "queue",
        db,
        "claim",
        "--run-id",
        "r",
        "--batch-id",
        "b",
        "--now",
        "2026-07-31T18:00:00+00:00",
        "--talk",
        "2024-03-01-yt.md",
        "--catalog-fingerprint",
        qb.FP,
    )
    assert code == 0, dry
    code, _ = _run(
        "queue",
        db,
        "claim",
        "--run-id",
        "r",
        "--batch-id",
        "b",
        "--now",
        "2026-07-31T18:00:00+00:00",
        "--talk",
        "2024-03-01-yt.md",
        "--catalog-fingerprint",
        qb.FP,
        "--apply",
        "--expected-sha256",
        dry["input_sha256"],
    )
    assert code == 0
    before = snapshot_file(db)
    _refused(
        _run("register-transcript", db, "--talk", "2024-03-01-yt.md", "transcripts/infoq.txt"),
        "active_queue_claim",
    )
    assert snapshot_file(db) == before


def test_url_lanes_own_their_provider_ids_and_respect_rejections(
    tmp_path: Path, snapshot_file
) -> None:
    db = _vault(tmp_path)
    url = f"https://youtu.be/{YT}"
    plan = _plan(
        tmp_path,
        {
            "kind": "set_video_url",
            "filename": "2024-01-01-infoq.md",
            "expect": "https://www.infoq.com/x/",
            "value": url,
        },
        {
            "kind": "set_slides_url",
            "filename": "2024-01-01-infoq.md",
            "expect": M,
            "value": "https://drive.google.com/file/d/1AbCdEfGhIjK/view",
        },
    )
    report = _apply("sources", db, plan)
    talk = _talk(db, "2024-01-01-infoq.md")
    assert talk["youtube_id"] == YT and talk["google_drive_id"] == "1AbCdEfGhIjK"
    assert report["changes"][0]["derived"] == {"youtube_id": YT}
    # back to a non-YouTube URL: the derived id goes with it
    plan = _plan(
        tmp_path,
        {
            "kind": "set_video_url",
            "filename": "2024-01-01-infoq.md",
            "expect": url,
            "value": "https://vimeo.com/1",
        },
    )
    _apply("sources", db, plan)
    assert "youtube_id" not in _talk(db, "2024-01-01-infoq.md")
    # a rejected source is refused
    rejected = {
        "schema_version": 1,
        "source_type": "video",
        "url": "https://vimeo.com/2",
        "reason": "wrong_delivery",
        "evidence": "another city",
        "verified_at": "2026-07-01T10:00:00+00:00",
    }
    document = qb.read_db(db)
    document["talks"][0]["source_rejections"] = [rejected]
    db.write_bytes((json.dumps(document, indent=2, sort_keys=True) + "\n").encode())
    before = snapshot_file(db)
    plan = _plan(
        tmp_path,
        {
            "kind": "set_video_url",
            "filename": "2024-01-01-infoq.md",
            "expect": "https://vimeo.com/1",
            "value": "https://vimeo.com/2",
        },
    )
    _refused(_run("sources", db, plan), "rejected_source")
    assert snapshot_file(db) == before


def test_relation_deck_and_pdf_lanes(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    qb.write_pptx(tmp_path / "decks" / "Conf" / "Talk.pptx")
    qb.write_pdf(db.parent / "slides" / f"{YT}.pdf")
    plan = _plan(
        tmp_path,
        {
            "kind": "register_pptx",
            "filename": "2024-03-01-yt.md",
            "expect": M,
            "value": "Conf/Talk.pptx",
        },
        {
            "kind": "set_source_relation",
            "filename": "2024-01-01-infoq.md",
            "expect": M,
            "value": {"type": "duplicate", "target_filename": "2024-03-01-yt.md"},
        },
    )
    _apply("sources", db, plan)
    talk = _talk(db, "2024-03-01-yt.md")
    assert {"capability": "local_pptx", "path": "Conf/Talk.pptx", "root": "pptx_source_dir"} in (
        talk["source_capabilities"]
    )
    report = _apply("register-slides", db, "--talk", "2024-03-01-yt.md", f"slides/{YT}.pdf")
    assert _talk(db, "2024-03-01-yt.md")["slides_local_path"] == f"slides/{YT}.pdf"
    assert report["command"] == "register-slides"
    before = snapshot_file(db)
    self_relation = _plan(
        tmp_path,
        {
            "kind": "set_source_relation",
            "filename": "2024-01-01-infoq.md",
            "expect": {"type": "duplicate", "target_filename": "2024-03-01-yt.md"},
            "value": {"type": "duplicate", "target_filename": "2024-01-01-infoq.md"},
        },
    )
    _refused(_run("sources", db, self_relation), "relation_target_invalid")
    (db.parent / "slides" / "bad.pdf").write_bytes(b"not a pdf")
    _refused(
        _run("register-slides", db, "--talk", "2024-01-01-infoq.md", "slides/bad.pdf"),
        "artifact_malformed",
    )
    assert snapshot_file(db) == before


def test_add_talk_then_a_duplicate_is_refused(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    report = _apply(
        "add-talk",
        db,
        "--title",
        "Ünïcode Talk!",
        "--conference",
        "Meetup",
        "--date",
        "2024-06-01",
        "--video-url",
        "https://vimeo.com/9",
        "--delivery-language",
        "de",
    )
    talk = _talk(db, "2024-06-01-unicode-talk.md")
    assert talk["status"] == "pending" and talk["schema_version"] == 5
    assert talk["video_url"] == "https://vimeo.com/9" and talk["delivery_language"] == "de"
    assert [c["capability"] for c in talk["source_capabilities"]] == ["remote_video"]
    assert report["plan"]["mutations"][0]["kind"] == "add_talk"
    before = snapshot_file(db)
    _refused(
        _run(
            "add-talk", db, "--title", "Unicode Talk", "--conference", "M", "--date", "2024-06-01"
        ),
        "duplicate_talk_filename",
    )
    _refused(
        _run("add-talk", db, "--title", "X", "--conference", "M", "--date", "June 1"),
        "invalid_value",
    )
    assert snapshot_file(db) == before


def test_a_plan_is_one_transaction(tmp_path: Path, snapshot_file) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    plan = _plan(
        tmp_path,
        {
            "kind": "register_transcript",
            "filename": "2024-01-01-infoq.md",
            "expect": M,
            "value": "transcripts/infoq.txt",
        },
        {
            "kind": "register_transcript",
            "filename": "2024-02-01-skipped.md",
            "expect": M,
            "value": "transcripts/missing.txt",
        },
    )
    _refused(
        _run("sources", db, plan, "--apply", "--expected-sha256", qb.sha(db.read_bytes())),
        "artifact_missing",
    )
    assert snapshot_file(db) == before
