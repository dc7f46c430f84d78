"""``plan`` and ``run`` on a generated archive: every talk acquired, registered once, rerun idle."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from rvault_contracts.canonical import file_sha256
from rvault_pptx_evidence.api import read_extraction
from rvault_testkit.archive_batch.archive import Archive
from rvault_testkit.plugin import run_cli
from rvault_tracking_db.api import read_database, transcript_owner
from rvault_transcript.api import OwnerContext, read_evidence
from rvault_video_extraction.api import manifest_path, read_manifest


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_plan_lists_each_talks_tasks_and_writes_nothing(
    archive: Archive, batch: Callable, snapshot_tree: Callable
) -> None:
    before = snapshot_tree(archive.vault)
    result = batch("plan", archive.vault)
    assert result.returncode == 0, result.stdout + result.stderr
    plan = result.json
    assert plan["database_sha256"] == sha256(archive.database)
    assert plan["totals"]["by_kind"] == {"deck": 2, "slides": 2, "transcript": 2}
    talk = archive.talks[0]
    tasks = {t["key"]: t for t in plan["tasks"]}
    transcript = tasks[f"transcript:{talk.filename}"]
    assert transcript["source"] == "recording"
    assert transcript["args"]["recording"] == f"slides-rebuild/{talk.video_id}/{talk.video_id}.mp4"
    assert tasks[f"deck:{talk.filename}"]["args"]["deck"] == talk.deck
    assert transcript["memory_bytes"] > tasks[f"deck:{talk.filename}"]["memory_bytes"]
    assert snapshot_tree(archive.vault) == before


def test_run_acquires_every_talk_and_registers_once_then_rerun_does_nothing(
    archive: Archive, batch: Callable, snapshot_file: Callable
) -> None:
    initial = sha256(archive.database)
    result = batch("run", archive.vault, "--workers", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.json
    assert report["failed"] == [] and report["totals"]["done"] == 6
    assert report["cluster"]["kind"] == "local" and report["cluster"]["workers"] == 2
    assert report["cluster"]["memory_resource"] is True
    assert "[6/6]" in result.stderr  # progress on stderr, one line per finished task
    # one transaction, bound to the planned bytes
    registration = report["registration"]
    assert registration["applied"] and registration["input_sha256"] == initial
    assert report["input_sha256"] == initial
    assert registration["output_sha256"] == sha256(archive.database) == report["output_sha256"]

    database = read_database(archive.database).database
    talks = {t["filename"]: t for t in database["talks"]}
    catalog = {r["pptx_path"]: r for r in database["pptx_catalog"]}
    for talk in archive.talks:
        record = talks[talk.filename]
        assert record["transcript_path"] == f"transcripts/{talk.video_id}.txt"
        assert record["transcript_source"] == "whisper"
        # the recording is attached in the same transaction: receipts verify from the record
        recording = f"slides-rebuild/{talk.video_id}/{talk.video_id}.mp4"
        assert record["local_media"]["path"] == recording
        assert record["local_media"]["sha256"] == file_sha256(archive.vault / recording)
        evidence = read_evidence(
            archive.vault / record["transcript_path"],
            owner=OwnerContext(**transcript_owner(record).kwargs()),
        )
        assert evidence.plain_quote and evidence.timed_quote, evidence
        assert talk.topic in (archive.vault / record["transcript_path"]).read_text().lower()
        receipt = catalog[talk.deck]["visual_evidence"]
        assert receipt["outcome"] == "succeeded" and catalog[talk.deck]["talk_filename"] == (
            talk.filename
        )
        extraction = archive.vault / receipt["artifact"]["path"]
        assert receipt["artifact"]["sha256"] == sha256(extraction)
        assert read_extraction(extraction.read_bytes()).usable_for_current_analysis
        manifest = read_manifest(
            archive.vault / manifest_path(talk.video_id),
            vault_root=archive.vault,
            expected_video_id=talk.video_id,
        )
        assert manifest.usable

    # the rerun finds every artifact current: no task, no cluster, no write
    state = snapshot_file(archive.database)
    again = batch("run", archive.vault)
    assert again.returncode == 0, again.stdout + again.stderr
    rerun = again.json
    assert rerun["totals"]["tasks"] == 0 and rerun["cluster"] is None
    assert {s["reason"] for s in rerun["skipped"]} == {"current"}
    assert rerun["registration"]["applied"] is False
    assert snapshot_file(archive.database) == state

    # a driver lost before its registration: test_scheduler.py resumes it on the scheduler
    # that already runs there (one cluster start less than a second local batch)


def test_a_deck_two_talks_share_is_extracted_once(archive: Archive, batch: Callable) -> None:
    first, second = archive.talks
    change = {"kind": "register_pptx", "filename": second.filename, "expect": second.deck,
              "value": first.deck}  # fmt: skip
    plan = json.dumps({"schema_version": 1, "mutations": [change]}).encode()
    database = str(archive.database)
    dry = run_cli("rvault-db", "sources", database, "-", input_bytes=plan)
    applied = run_cli("rvault-db", "sources", database, "-", "--apply", "--expected-sha256",
                      dry.json["input_sha256"], input_bytes=plan)  # fmt: skip
    assert applied.returncode == 0, applied.stdout
    tasks = batch("plan", archive.vault).json["tasks"]
    decks = [t for t in tasks if t["kind"] == "deck"]
    assert [(t["talk"], t["args"]["deck"]) for t in decks] == [(first.filename, first.deck)]


def test_an_unreachable_scheduler_is_refused_and_nothing_changes(
    archive: Archive, batch: Callable, snapshot_tree: Callable
) -> None:
    before = snapshot_tree(archive.vault)
    result = batch(
        "run", archive.vault, "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1"
    )
    assert result.returncode == 2
    error = result.json["error"]
    assert error["code"] == "scheduler_unreachable" and "dask scheduler" in result.json["hint"]
    assert snapshot_tree(archive.vault) == before


def test_max_talks_bounds_the_batch_and_defers_the_rest(archive: Archive, batch: Callable) -> None:
    plan = batch("plan", archive.vault, "--max-talks", "1").json
    first, second = archive.talks
    assert {t["talk"] for t in plan["tasks"]} == {first.filename}
    assert plan["skipped"] == [{"talk": second.filename, "reason": "deferred",
                                "text": "beyond --max-talks; the next batch plans it"}]  # fmt: skip
    assert plan["next_command"] == f"rvault-batch run {archive.vault} --max-talks 1"


def test_a_folder_without_a_database_is_refused_with_the_owners_code(
    tmp_path: Path, batch: Callable
) -> None:
    result = batch("plan", tmp_path)
    assert result.returncode == 2
    refusal = result.json
    assert refusal["error"]["code"] == "database_missing"
    assert "rvault-db init" in refusal["hint"]
    assert list(tmp_path.iterdir()) == []
