"""``attach-media``: a talk's own recording recorded as ``local_media`` and read by every reader.

The recording is real speech synthesized by espeak-ng (a WAV a few seconds
long), measured by the owner (SHA-256 through one no-follow descriptor,
duration by ffprobe on that descriptor). Refusals exit 2 with a code and a
hint and leave the database's bytes and inode unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.schemas import schema_issues
from rvault_tracking_db import api

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
from _sources_cli import apply as _apply
from _sources_cli import refused as _refused
from _sources_cli import run as _run

TALK = "2024-06-01-meetup.md"
DONE = "2023-01-01-done.md"
SPOKEN = "Good morning. Every speaker needs a clear opening and a memorable closing."


@pytest.fixture(scope="session")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    out = tmp_path_factory.mktemp("speech") / "talk.wav"
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(out), SPOKEN], check=True)
    return out


def _seconds(wav: Path) -> float:
    with wave.open(str(wav)) as audio:
        return audio.getnframes() / audio.getframerate()


def _vault(tmp_path: Path, speech: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "recordings").mkdir(parents=True)
    shutil.copyfile(speech, vault / "recordings" / "talk.wav")
    talks = [
        qb.pending_talk(TALK),
        qb.processed_talk(DONE, 5, transcript_path="transcripts/done.txt"),
    ]
    qb.write_transcript(vault, "transcripts/done.txt")
    os.chdir(vault)  # the paths typed below are vault-relative: work inside the vault
    return qb.write_db(vault, qb.database(talks))


def _talk(db: Path, name: str) -> dict[str, Any]:
    return next(t for t in qb.read_db(db)["talks"] if t["filename"] == name)


def _status_row(db: Path, name: str) -> dict[str, Any]:
    code, report = _run("status", db, "--format", "json")
    assert code == 0 and schema_issues("db-status-report", 1, report) == [], report
    return next(r for r in report["talks"] if r["filename"] == name)


def test_attach_media_records_digest_size_and_probed_duration(tmp_path: Path, speech: Path) -> None:
    db = _vault(tmp_path, speech)
    report = _apply("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    media = _talk(db, TALK)["local_media"]
    data = (db.parent / "recordings" / "talk.wav").read_bytes()
    assert schema_issues("db-local-media", 2, media) == []
    assert media["streams"] == {"video": False, "audio": True}  # espeak-ng's WAV: sound only
    assert (media["path"], media["sha256"], media["size_bytes"]) == (
        "recordings/talk.wav",
        hashlib.sha256(data).hexdigest(),
        len(data),
    )
    assert media["duration_seconds"] == pytest.approx(_seconds(speech), abs=0.05)
    assert report["plan"]["mutations"][0]["kind"] == "attach_media"
    owner = api.transcript_owner(_talk(db, TALK))
    assert owner.kwargs() == {
        "video_id": None,
        "media_sha256": media["sha256"],
        "duration_seconds": media["duration_seconds"],
    }
    assert _status_row(db, TALK)["media"] == {"path": "recordings/talk.wav", "state": "current"}
    # the same recording again changes nothing: bytes and inode kept
    before = db.stat()
    again = _apply("attach-media", db, "--talk", TALK, db.parent / "recordings" / "talk.wav")
    assert again["changed"] is False and db.stat().st_ino == before.st_ino


def test_add_talk_takes_the_recording(tmp_path: Path, speech: Path) -> None:
    db = _vault(tmp_path, speech)
    _apply("add-talk", db, "--title", "Small Tools", "--conference", "Meetup", "--date",
           "2024-07-01", "--media", "recordings/talk.wav")  # fmt: skip
    talk = _talk(db, "2024-07-01-small-tools.md")
    assert talk["local_media"]["path"] == "recordings/talk.wav"
    assert api.transcript_owner(talk).media_sha256 == talk["local_media"]["sha256"]


def test_attaching_to_an_analysed_talk_requeues_it(tmp_path: Path, speech: Path) -> None:
    db = _vault(tmp_path, speech)
    attached = qb.read_db(db)
    attached["talks"][1]["local_media"] = _apply(
        "attach-media", db, "--talk", TALK, "recordings/talk.wav"
    )["changes"][0]["after"]
    qb.write_db(db.parent, attached)  # the analysed talk already had this recording
    os.utime(db.parent / "recordings" / "talk.wav", ns=(10**18, 10**18))
    touched = _apply("attach-media", db, "--talk", DONE, "recordings/talk.wav")
    assert touched["changed"] is True  # the generation (a cache key) moved ...
    assert _talk(db, DONE)["status"] == "processed"  # ... the evidence did not
    recording = db.parent / "recordings" / "talk.wav"
    recording.write_bytes(recording.read_bytes() + b"\0" * 64)
    _apply("attach-media", db, "--talk", DONE, "recordings/talk.wav")
    talk = _talk(db, DONE)
    assert (talk["status"], talk["reprocess_reason"]) == (
        "needs-reprocessing",
        "source_lane_changed",
    )


@pytest.mark.parametrize(
    ("setup", "path", "code"),
    [
        (None, "recordings/none.wav", "media_missing"),
        (None, "../outside.wav", "path_escapes_root"),
        ("outside", "/OUTSIDE", "path_escapes_root"),
        ("link", "recordings/link.wav", "symlink_refused"),
        ("dirlink", "linked/talk.wav", "symlink_refused"),
        ("text", "recordings/notes.wav", "media_unprobeable"),
        ("directory", "recordings", "not_regular_file"),
    ],
)
def test_a_recording_outside_the_vault_or_behind_a_link_is_refused(
    tmp_path: Path, speech: Path, snapshot_file, setup: str | None, path: str, code: str
) -> None:
    db = _vault(tmp_path, speech)
    recordings = db.parent / "recordings"
    if setup == "outside":
        path = str(tmp_path / "talk.wav")
        shutil.copyfile(speech, path)
    elif setup == "link":
        (recordings / "link.wav").symlink_to(recordings / "talk.wav")
    elif setup == "dirlink":
        (db.parent / "linked").symlink_to(recordings)
    elif setup == "text":
        (recordings / "notes.wav").write_text("not a recording\n")
    before = snapshot_file(db)
    args = ("attach-media", db, "--talk", TALK, path)
    assert "vault" in _refused(_run(*args), code)["hint"]
    _refused(_run(*args, "--apply", "--expected-sha256", qb.sha(db.read_bytes())), code)
    assert snapshot_file(db) == before


def test_a_plan_whose_facts_are_not_the_file_is_refused(
    tmp_path: Path, speech: Path, snapshot_file
) -> None:
    db = _vault(tmp_path, speech)
    code, dry = _run("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    assert code == 0
    measured = dry["plan"]["mutations"][0]["value"]
    plan = tmp_path / "plan.json"
    before = snapshot_file(db)
    for name, wrong in (
        ("sha256", "0" * 64),
        ("size_bytes", 7),
        ("duration_seconds", 99.0),
        ("streams", {"video": True, "audio": True}),  # a WAV claimed to be a video
    ):
        change = dict(dry["plan"]["mutations"][0], value={**measured, name: wrong})
        plan.write_text(json.dumps({"schema_version": 1, "mutations": [change]}))
        document = _refused(_run("sources", db, plan), "media_mismatch")
        assert document["error"]["path"] == f'$["mutations"][0]["value"]["{name}"]'
    assert snapshot_file(db) == before


def test_status_reports_a_replaced_recording_as_stale(tmp_path: Path, speech: Path) -> None:
    db = _vault(tmp_path, speech)
    _apply("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    recording = db.parent / "recordings" / "talk.wav"
    os.utime(recording, ns=(10**18, 10**18))  # touched, same bytes: hashed, still current
    assert _status_row(db, TALK)["media"]["state"] == "current"
    data = bytearray(recording.read_bytes())
    data[-1] ^= 0xFF  # same size: only the digest can tell
    recording.write_bytes(bytes(data))
    row = _status_row(db, TALK)
    assert row["media"]["state"] == "media_stale"
    assert row["next_action"]["code"] == "attach_media"
    recording.write_bytes(bytes(data[:-100]))  # another size: no byte is hashed to tell
    assert _status_row(db, TALK)["media"]["state"] == "media_stale"
    recording.unlink()
    assert _status_row(db, TALK)["media"]["state"] == "media_missing"


def test_a_malformed_local_media_is_one_talks_warning(tmp_path: Path, speech: Path) -> None:
    db = _vault(tmp_path, speech)
    _apply("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    database = qb.read_db(db)
    database["talks"][0]["local_media"]["sha256"] = "not-a-digest"
    qb.write_db(db.parent, database)
    result = api.read_database(db)  # no refusal: one talk's trouble
    assert result.assessment is not None
    (warning,) = [w for w in result.assessment.warnings if w.code == "local_media_invalid"]
    assert warning.path == '$["talks"][0]["local_media"]["sha256"]'
    assert api.transcript_owner(database["talks"][0]).media_sha256 is None
    row = _status_row(db, TALK)
    assert (row["media"]["state"], row["next_action"]["code"]) == ("invalid", "attach_media")
    # an unsupported version stays structural: the database is refused
    database["talks"][0]["local_media"]["schema_version"] = 3
    qb.write_db(db.parent, database)
    with pytest.raises(api.DatabaseRefusal) as refusal:
        api.read_database(db)
    assert refusal.value.code == "unsupported_schema_version"


@pytest.fixture(scope="session")
def filmed(tmp_path_factory: pytest.TempPathFactory, speech: Path) -> Path:
    """A talk filmed by OpenCV (mp4v, three slides beside a speaker) with the speech muxed in."""
    from rvault_testkit.video_extraction.synthetic import (
        TalkSpec,
        distinct_slides,
        timeline,
        write_mp4v,
    )

    folder = tmp_path_factory.mktemp("filmed")
    silent = write_mp4v(
        TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(2), 1.5)),
        folder / "silent.mp4",
    )
    out = folder / "talk.mp4"
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-i", str(silent), "-i", str(speech),
         "-c:v", "copy", "-c:a", "aac", str(out)],
        check=True,
    )  # fmt: skip
    return out


def test_the_recordings_streams_are_recorded(tmp_path: Path, speech: Path, filmed: Path) -> None:
    """A filmed talk has a video stream, a WAV has none: only the first is a delivery video."""
    db = _vault(tmp_path, speech)
    shutil.copyfile(filmed, db.parent / "recordings" / "talk.mp4")
    _apply("attach-media", db, "--talk", TALK, "recordings/talk.mp4")
    video = _talk(db, TALK)["local_media"]
    assert video["streams"] == {"video": True, "audio": True}
    assert api.recording_shows_video(db.parent, video) is True
    _apply("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    audio = _talk(db, TALK)["local_media"]
    assert api.recording_shows_video(db.parent, audio) is False
    assert api.recording_shows_video(db.parent, None) is False


def test_a_v1_record_still_reads_and_its_streams_are_probed(
    tmp_path: Path, speech: Path, filmed: Path
) -> None:
    """Attached before streams were kept: it still binds the transcript owner, and whether it
    is a video is probed from the file (a file that cannot be probed is no video)."""
    db = _vault(tmp_path, speech)
    shutil.copyfile(filmed, db.parent / "recordings" / "talk.mp4")
    for name, shows_video in (("talk.mp4", True), ("talk.wav", False)):
        _apply("attach-media", db, "--talk", TALK, f"recordings/{name}")
        database = qb.read_db(db)
        media = database["talks"][0]["local_media"]
        del media["streams"]
        media["schema_version"] = 1
        assert schema_issues("db-local-media", 1, media) == []
        qb.write_db(db.parent, database)
        result = api.read_database(db)
        assert [w.code for w in result.assessment.warnings] == []
        assert api.transcript_owner(database["talks"][0]).media_sha256 == media["sha256"]
        assert api.recording_shows_video(db.parent, media) is shows_video
        assert _status_row(db, TALK)["media"]["state"] == "current"
    media["path"] = "recordings/gone.mp4"
    assert api.recording_shows_video(db.parent, media) is False


def test_reattaching_a_v1_recording_records_its_streams_without_requeueing(
    tmp_path: Path, speech: Path
) -> None:
    db = _vault(tmp_path, speech)
    database = qb.read_db(db)
    measured = _apply("attach-media", db, "--talk", TALK, "recordings/talk.wav")
    legacy = {k: v for k, v in measured["changes"][0]["after"].items() if k != "streams"}
    database["talks"][1]["local_media"] = dict(legacy, schema_version=1)
    qb.write_db(db.parent, database)  # the analysed talk was attached before v2
    upgraded = _apply("attach-media", db, "--talk", DONE, "recordings/talk.wav")
    assert upgraded["changed"] is True
    talk = _talk(db, DONE)
    assert talk["local_media"]["schema_version"] == 2 and "streams" in talk["local_media"]
    assert talk["status"] == "processed"  # the same bytes: no new evidence


def test_cover_art_is_no_video(tmp_path: Path, speech: Path) -> None:
    """An MP3 with its cover picture (a video stream marked attached_pic) is audio only."""
    from PIL import Image

    db = _vault(tmp_path, speech)
    cover = tmp_path / "cover.png"
    Image.new("RGB", (64, 64), (200, 30, 30)).save(cover)
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-i", str(speech), "-i", str(cover),
         "-map", "0", "-map", "1", "-c:a", "libmp3lame", "-c:v", "png",
         "-disposition:v", "attached_pic", str(db.parent / "recordings" / "talk.mp3")],
        check=True,
    )  # fmt: skip
    _apply("attach-media", db, "--talk", TALK, "recordings/talk.mp3")
    media = _talk(db, TALK)["local_media"]
    assert media["streams"] == {"video": False, "audio": True}
    assert api.recording_shows_video(db.parent, media) is False
