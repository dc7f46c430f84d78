"""``capture-identity`` asks yt-dlp once per distinct active video and writes a capture
file (never the database); ``set-identity`` stores a reviewed entry. Offline: recorded
yt-dlp info documents go through yt-dlp's own processing (``--replay``)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.identity import info_document
from rvault_tracking_db.identity.capture import capture, replay_extractor

YT = "dQw4w9WgXcQ"
OTHER = "AbCdEfGhI_1"
REJECTED = "AAAAAAAAAAA"


def _vault(tmp_path: Path) -> Path:
    rejection = {
        "schema_version": 1,
        "source_type": "video",
        "url": f"https://youtu.be/{REJECTED}",
        "reason": "non_delivery_clip",
        "evidence": "a 40-second trailer",
        "verified_at": "2026-07-30T09:00:00+00:00",
    }
    talks = [
        qb.remote_talk(
            "2023-10-04-cost-myths.md", YT, title="Kubernetes Cost Myths", date="2023-10-04"
        ),
        qb.remote_talk("2023-10-05-cost-myths-reupload.md", YT, title="Kubernetes Cost Myths"),
        qb.remote_talk("2024-01-01-other.md", OTHER, title="Other"),
        qb.remote_talk("2024-02-02-clip.md", REJECTED, source_rejections=[rejection]),
        qb.pending_talk("2024-03-03-no-video.md"),
    ]
    return qb.write_db(tmp_path / "vault", qb.database(talks))


def _recordings(tmp_path: Path) -> Path:
    directory = tmp_path / "recorded"
    directory.mkdir()
    (directory / f"{YT}.info.json").write_text(json.dumps(info_document(YT)))
    return directory


def test_one_request_per_distinct_active_video(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    asked: Counter[str] = Counter()
    replay = replay_extractor(_recordings(tmp_path))

    def counting(video_id: str) -> Any:
        asked[video_id] += 1
        return replay(video_id)

    entries = capture(qb.read_db(db), counting, "2026-07-31T12:00:00Z")
    assert asked == Counter({YT: 1, OTHER: 1})  # the rejected clip and no-video talk: never
    by_video = {e["video_id"]: e for e in entries}
    assert by_video[YT]["talks"] == [
        "2023-10-04-cost-myths.md",
        "2023-10-05-cost-myths-reupload.md",
    ]
    assert by_video[OTHER]["proposal"] is None
    assert by_video[OTHER]["error"]["code"] == "metadata_unavailable"


def test_capture_writes_provider_facts_only_and_never_the_database(
    tmp_path: Path, snapshot_file: Any
) -> None:
    db = _vault(tmp_path)
    before = snapshot_file(db)
    out = tmp_path / "capture.json"
    result = run_cli(
        "rvault-db",
        "capture-identity",
        db,
        "--out",
        out,
        "--replay",
        _recordings(tmp_path),
        "--captured-at",
        "2026-07-31T12:00:00Z",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["videos"] == 2 and result.json["captured"] == 1
    assert snapshot_file(db) == before
    document = json.loads(out.read_bytes())
    assert schema_issues("db-identity-capture", 1, document) == []
    assert document["database_sha256"] == qb.sha(db.read_bytes())
    proposal = document["entries"][1]["proposal"]
    assert proposal == {
        "schema_version": 1,
        "provider": "youtube",
        "video_id": YT,
        "title": "Kubernetes Cost Myths (Devoxx Belgium 2023)",
        "uploader": "Jane Doe",
        "uploader_id": "@devoxx",
        "upload_date": "2023-10-12",
        "duration_seconds": 2712,
        "webpage_url": f"https://www.youtube.com/watch?v={YT}",
        "webpage_video_id": YT,
        "captured_at": "2026-07-31T12:00:00Z",
    }  # no speakers from the uploader, no recorded_date from the upload date


def test_an_answer_for_another_video_is_an_entry_error(tmp_path: Path) -> None:
    db = _vault(tmp_path)
    recorded = _recordings(tmp_path)
    (recorded / f"{YT}.info.json").write_text(json.dumps(info_document(OTHER)))
    entries = capture(qb.read_db(db), replay_extractor(recorded), "2026-07-31T12:00:00Z")
    assert entries[1]["error"]["code"] == "metadata_id_mismatch"


def test_set_identity_stores_the_reviewed_entry(tmp_path: Path, snapshot_file: Any) -> None:
    db = _vault(tmp_path)
    out = tmp_path / "capture.json"
    assert (
        run_cli(
            "rvault-db", "capture-identity", db, "--out", out, "--replay", _recordings(tmp_path)
        ).returncode
        == 0
    )
    talk = "2023-10-04-cost-myths.md"
    args = (
        "set-identity",
        db,
        "--talk",
        talk,
        "--capture",
        out,
        "--speaker",
        "Jane Doe",
        "--recorded-date",
        "2023-10-04",
    )
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout
    applied = run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout
    identity = qb.read_db(db)["talks"][0]["source_identity"]
    assert schema_issues("db-source-identity", 1, identity) == []
    assert identity["speakers"] == ["Jane Doe"] and identity["recorded_date"] == "2023-10-04"
    before = snapshot_file(db)
    missing = run_cli(
        "rvault-db", "set-identity", db, "--talk", "2024-01-01-other.md", "--capture", out
    )
    assert missing.returncode == 2 and missing.json["error"]["code"] == "capture_entry_missing"
    assert snapshot_file(db) == before
