"""``register-transcript --fetch-result``: the transcript a fetch printed, registered as printed.

Every fetch result here is real producer output: ``rvault-transcript
vtt-cleanup`` on a generated caption file, or ``rvault-transcript fetch ID``
over a transcript already in the vault (the ``existing`` path, which needs
no network). A refusal is asserted with exit 2, its stable code and the
database's bytes and inode unchanged (``snapshot_file``).
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
from rvault_testkit.plugin import run_cli
from rvault_tracking_db import owner_readers

TALK = "2024-01-01-infoq.md"
YT = "dQw4w9WgXcQ"
OTHER_YT = "9bZkp7q19f0"


def _caption_file(cues: int) -> str:
    blocks = ["WEBVTT\nKind: captions\nLanguage: en"]
    for i in range(cues):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        blocks.append(f"{at}.000 --> {at}.900\nwe discuss point {i} in detail now")
    return "\n\n".join(blocks) + "\n"


def _vault(tmp_path: Path, *talks: dict[str, Any]) -> Path:
    vault = tmp_path / "vault"
    (vault / "transcripts").mkdir(parents=True)
    rows = list(talks) or [qb.pending_talk(TALK, video_url="https://www.infoq.com/x/")]
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(rows))


def _vtt_cleanup(db: Path, name: str = "infoq") -> Path:
    """Run the real producer inside the vault; its stdout saved as ``fetch.json``."""
    transcripts = db.parent / "transcripts"
    (transcripts / f"{name}.en.vtt").write_text(_caption_file(60), encoding="utf-8")
    result = run_cli(
        "rvault-transcript", "vtt-cleanup", transcripts / f"{name}.en.vtt",
        transcripts / f"{name}.txt",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    saved = db.parent.parent / f"{name}.fetch.json"
    saved.write_text(result.stdout, encoding="utf-8")
    return saved


def _fetch_existing(db: Path, video: str = YT) -> Path:
    """``rvault-transcript fetch ID`` over a transcript already there (method ``existing``)."""
    words = " ".join(f"word{i}" for i in range(420))
    (db.parent / "transcripts" / f"{video}.txt").write_text(words + "\n", encoding="utf-8")
    result = run_cli(
        "rvault-transcript", "fetch", video, "--out", Path("transcripts") / f"{video}.txt",
        "--existing-source", "manual", cwd=db.parent,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["method"] == "existing" and result.json["transcript_path"].startswith(
        "transcripts/"
    )  # run at the vault root: the printed path is vault-relative
    saved = db.parent.parent / f"{video}.fetch.json"
    saved.write_text(result.stdout, encoding="utf-8")
    return saved


def _talk(db: Path, name: str = TALK) -> dict[str, Any]:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == name)


def _changed(path: Path, **fields: Any) -> Path:
    document = json.loads(path.read_bytes())
    document.update(fields)
    out = path.with_name("changed-" + path.name)
    out.write_text(json.dumps(document), encoding="utf-8")
    return out


def test_a_vtt_cleanup_result_registers_its_transcript(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    result = _vtt_cleanup(db)
    report = _apply("register-transcript", db, "--talk", TALK, "--fetch-result", result)
    talk = _talk(db)
    assert talk["transcript_path"] == "transcripts/infoq.txt"  # vault-relative, from the claim
    assert "transcript_source" not in talk  # vtt knows no provenance: never guessed
    assert {"capability": "local_transcript", "path": "transcripts/infoq.txt", "root": "vault"} in (
        talk["source_capabilities"]
    )
    (change,) = report["plan"]["mutations"]
    assert change == {
        "kind": "register_transcript",
        "filename": TALK,
        "expect": {"$missing": True},
        "value": "transcripts/infoq.txt",
    }
    status = run_cli("rvault-db", "status", db, "--format", "json")
    row = next(r for r in status.json["talks"] if r["filename"] == TALK)
    assert (row["transcript"]["quality"], row["transcript"]["timing"]) == (
        "quality_current",
        "timing_current",
    )


def test_stdin_and_a_known_source_for_a_vtt_result(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    data = _vtt_cleanup(db).read_bytes()
    args = ("register-transcript", db, "--talk", TALK, "--fetch-result", "-", "--source", "manual")
    _apply(*args, stdin=data)
    assert _talk(db)["transcript_source"] == "manual"


def test_the_fetch_result_path_equals_the_typed_path(tmp_path: Path) -> None:
    """The shortcut builds exactly the plan a person typing PATH would (same output bytes)."""
    db = _vault(tmp_path)
    result = _vtt_cleanup(db)
    _, from_claim = _run("register-transcript", db, "--talk", TALK, "--fetch-result", result)
    _, typed = _run("register-transcript", db, "--talk", TALK, "transcripts/infoq.txt")
    assert from_claim["plan"] == typed["plan"]
    assert from_claim["output_sha256"] == typed["output_sha256"]


def test_an_existing_youtube_result_binds_to_the_talks_video(
    tmp_path: Path, snapshot_file: Any
) -> None:
    db = _vault(
        tmp_path,
        qb.remote_talk("2024-02-01-yt.md", YT, transcript_source="youtube_auto"),
        qb.remote_talk("2024-03-01-other.md", OTHER_YT),
    )
    result = _fetch_existing(db)
    before = snapshot_file(db)
    document = _refused(
        _run("register-transcript", db, "--talk", "2024-03-01-other.md", "--fetch-result", result),
        "fetch_result_owner_mismatch",
    )
    assert document["error"]["path"] == '$["source"]["video_id"]'
    assert snapshot_file(db) == before
    _apply("register-transcript", db, "--talk", "2024-02-01-yt.md", "--fetch-result", result)
    talk = _talk(db, "2024-02-01-yt.md")
    assert talk["transcript_path"] == f"transcripts/{YT}.txt"
    assert talk["transcript_source"] == "youtube_auto"  # existing: the recorded value stays


def test_a_fetch_that_says_how_it_was_made_records_it_and_allows_no_contradiction(
    tmp_path: Path, snapshot_file: Any
) -> None:
    """A captions result (the ``existing`` document relabelled: the receipts on disk are real)."""
    db = _vault(tmp_path, qb.remote_talk("2024-02-01-yt.md", YT))
    result = _changed(_fetch_existing(db), method="captions", transcript_source="youtube_auto")
    before = snapshot_file(db)
    args = ("register-transcript", db, "--talk", "2024-02-01-yt.md", "--fetch-result", result)
    _refused(_run(*args, "--source", "manual"), "transcript_source_conflict")
    assert snapshot_file(db) == before
    _apply(*args)
    assert _talk(db, "2024-02-01-yt.md")["transcript_source"] == "youtube_auto"


INVALID = [
    ({"word_count": -5}, "schema_violation"),
    ({"word_count": 100}, "word_count_below_floor"),
    ({"quality_path": None}, "quality_path_mismatch"),
    ({"timed_path": None}, "timing_status_mismatch"),
    ({"min_words": 30}, "min_words_below_floor"),
]


@pytest.mark.parametrize(("fields", "issue"), INVALID)
def test_the_owner_reader_refuses_and_nothing_is_written(
    tmp_path: Path, snapshot_file: Any, fields: dict[str, Any], issue: str
) -> None:
    db = _vault(tmp_path)
    result = _changed(_vtt_cleanup(db), **fields)
    before = snapshot_file(db)
    for apply in ((), ("--apply", "--expected-sha256", qb.sha(db.read_bytes()))):
        document = _refused(
            _run("register-transcript", db, "--talk", TALK, "--fetch-result", result, *apply),
            "invalid_fetch_result",
        )
        assert issue in {i["code"] for i in document["issues"]}
        assert snapshot_file(db) == before


def test_not_a_fetch_result_at_all(tmp_path: Path, snapshot_file: Any) -> None:
    db = _vault(tmp_path)
    transcripts = db.parent / "transcripts"
    failed = run_cli(
        "rvault-transcript", "vtt-cleanup", transcripts / "nope.vtt", transcripts / "x.txt"
    )
    assert failed.returncode == 2
    refusal = tmp_path / "failed.json"
    refusal.write_text(failed.stdout, encoding="utf-8")
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"ok": true, "ok": true}', encoding="utf-8")
    before = snapshot_file(db)
    cases = [(refusal, "fetch_result_is_failure"), (garbage, "duplicate_key")]
    for path, issue in cases:
        document = _refused(
            _run("register-transcript", db, "--talk", TALK, "--fetch-result", path),
            "invalid_fetch_result",
        )
        assert issue in {i["code"] for i in document["issues"]}, document
    _refused(
        _run("register-transcript", db, "--talk", TALK, "--fetch-result", tmp_path),
        "fetch_result_not_regular_file",
    )
    _refused(
        _run("register-transcript", db, "--talk", TALK, "--fetch-result", tmp_path / "none.json"),
        "fetch_result_unreadable",
    )
    assert snapshot_file(db) == before


def test_a_transcript_of_another_vault_is_refused(tmp_path: Path, snapshot_file: Any) -> None:
    db = _vault(tmp_path)
    other = _vault(tmp_path / "elsewhere")
    result = _vtt_cleanup(other)
    before = snapshot_file(db)
    # the producer prints the vault-relative locator (transcripts/infoq.txt), so another
    # vault's result names a transcript this vault does not hold: refused, nothing written
    document = _refused(
        _run("register-transcript", db, "--talk", TALK, "--fetch-result", result),
        "artifact_missing",
    )
    assert document["reason"] == "missing"
    assert snapshot_file(db) == before


def test_the_receipts_on_disk_are_the_evidence(tmp_path: Path, snapshot_file: Any) -> None:
    db = _vault(tmp_path)
    result = _vtt_cleanup(db)
    transcripts = db.parent / "transcripts"
    before = snapshot_file(db)
    args = ("register-transcript", db, "--talk", TALK, "--fetch-result", result)

    # the claim counts other words than the receipt on disk
    _refused(_run(*_swap(args, result, _changed(result, word_count=421))), "fetch_result_stale")

    # timing receipt gone: the claim names it, so it is refused (quality alone is not enough)
    timing = transcripts / "infoq.segments.json"
    saved = timing.read_bytes()
    timing.unlink()
    document = _refused(_run(*args), "fetch_result_receipt_not_current")
    assert (document["error"]["path"], document["receipt"]["code"]) == (
        '$["timed_path"]',
        "timing_missing",
    )
    timing.write_bytes(saved)

    # transcript bytes changed since the fetch: the quality receipt no longer binds them
    transcript = transcripts / "infoq.txt"
    original = transcript.read_bytes()
    transcript.write_bytes(original.replace(b"\n", b"\r\n"))
    document = _refused(_run(*args), "fetch_result_receipt_not_current")
    assert document["receipt"]["code"] == "transcript_hash_mismatch"

    # the transcript itself gone: the lane's own artifact rule, as for a typed PATH
    transcript.unlink()
    _refused(_run(*args), "artifact_missing")
    assert snapshot_file(db) == before
    transcript.write_bytes(original)
    _apply(*args)


def _swap(args: tuple[Any, ...], old: Path, new: Path) -> tuple[Any, ...]:
    return tuple(new if a == old else a for a in args)


def test_a_transcript_path_is_no_fetch_result_and_a_missing_reader_says_so(
    tmp_path: Path, snapshot_file: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _vault(tmp_path)
    result = _vtt_cleanup(db)
    before = snapshot_file(db)
    document = _refused(
        _run(
            "register-transcript",
            db,
            "--talk",
            TALK,
            "--fetch-result",
            db.parent / "transcripts" / "infoq.txt",
        ),
        "invalid_fetch_result",
    )  # PATH names the fetch result with --fetch-result; a transcript is not JSON
    assert document["hint"].startswith("pass the JSON that rvault-transcript fetch")
    monkeypatch.setattr(owner_readers, "transcript_api", lambda: None)  # not installed
    document = _refused(
        _run("register-transcript", db, "--talk", TALK, "--fetch-result", result),
        "reader_unavailable",
    )
    assert "rvault-tracking-db[status]" in document["hint"]
    assert snapshot_file(db) == before
