"""transcript fetch result, timing v2 and quality v1 -> tracking-db (source capabilities).

The database owner maps the fetch result's method to ``transcript_source``
(never backfilling a guess for ``existing``) and counts a local transcript
as a capability only when its quality receipt is current. This runs the
real ``rvault-transcript vtt-cleanup`` console script and reads its output
and receipts through ``rvault_transcript.api``; and the database owner's own
consumer path: ``rvault-db register-transcript --fetch-result`` takes that
printed output (dry run, then ``--apply`` bound to the reviewed digest) and
registers the transcript it names, after reading its receipts on disk.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import wave
from pathlib import Path
from typing import Any

from _support import write_current_database
from rvault_contracts.schemas import is_valid, schema_issues
from rvault_testkit.plugin import run_cli
from rvault_tracking_db import api as tracking_api
from rvault_transcript import api

COVERS = [
    ("transcript-fetch-result", "transcript", "tracking-db"),
    ("transcript-timing", "transcript", "tracking-db"),
    ("transcript-quality", "transcript", "tracking-db"),
]


def caption_file(lines: int) -> str:
    cues = []
    for i in range(lines):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        cues.append(f"{at}.000 --> {at}.900 line:90%\nwe discuss point {i} in <i>detail</i> now")
    return "WEBVTT\n\nNOTE exported by a captioning tool\n\n" + "\n\n".join(cues) + "\n"


def test_fetch_result_and_capability(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "source.vtt").write_text(caption_file(70))
    out = transcripts / "infoq-talk.txt"
    result = run_cli("rvault-transcript", "vtt-cleanup", transcripts / "source.vtt", out)
    assert result.returncode == 0, result.stderr
    document = result.json
    assert api.validate_fetch_result(document) == []
    assert is_valid("transcript-fetch-result", 1, document)
    # vtt and existing results carry no provenance claim: the database keeps its value.
    assert document["transcript_source"] is None
    assert Path(document["quality_path"]) == api.quality_path_for(out)
    assert Path(document["timed_path"]) == api.timing_path_for(out)
    capability = api.read_quality(out)
    assert capability.usable and capability.receipt is not None
    assert capability.receipt.word_count == document["word_count"] == 490
    assert api.read_timing(out).usable


def test_missing_or_broken_quality_is_not_a_capability(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "source.vtt").write_text(caption_file(70))
    out = transcripts / "talk.txt"
    assert (
        run_cli("rvault-transcript", "vtt-cleanup", transcripts / "source.vtt", out).returncode == 0
    )
    quality = api.quality_path_for(out)
    broken = quality.read_text().replace('"min_words": 400', '"min_words": 30')
    quality.write_text(broken)
    assert api.read_quality(out).code == "policy_floor_too_low"
    quality.unlink()
    assert api.read_quality(out).status == "missing"
    assert not api.read_evidence(out).plain_quote


def test_register_transcript_takes_the_printed_fetch_result(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    transcripts = vault / "transcripts"
    transcripts.mkdir(parents=True)
    talk = {"schema_version": 5, "filename": "2024-05-01-infoq.md", "status": "pending"}
    db = write_current_database(vault, [talk])
    (transcripts / "source.en.vtt").write_text(caption_file(70))
    produced = run_cli(
        "rvault-transcript", "vtt-cleanup", transcripts / "source.en.vtt",
        transcripts / "infoq-talk.txt",
    )  # fmt: skip
    assert produced.returncode == 0, produced.stderr
    printed = tmp_path / "fetch.json"
    printed.write_text(produced.stdout, encoding="utf-8")  # `... > fetch.json`, as printed
    args = ("register-transcript", db, "--talk", "2024-05-01-infoq.md", "--fetch-result", printed)
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    applied = run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert schema_issues("db-source-report", 1, applied.json) == []
    (stored,) = json.loads(db.read_bytes())["talks"]
    assert stored["transcript_path"] == "transcripts/infoq-talk.txt"
    assert "transcript_source" not in stored  # a vtt result carries no provenance claim
    status = run_cli("rvault-db", "status", db, "--format", "json")
    (row,) = status.json["talks"]
    assert (row["transcript"]["state"], row["transcript"]["quality"]) == (
        "valid",
        "quality_current",
    )


def _applied(*args: str | Path, input_bytes: bytes | None = None) -> Any:
    """``rvault-db`` dry run, then ``--apply`` bound to the digest it reported."""
    dry = run_cli("rvault-db", *args, input_bytes=input_bytes)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    applied = run_cli(
        "rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"],
        input_bytes=input_bytes,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return applied


def test_a_local_whisper_fetch_of_an_attached_recording_verifies(tmp_path: Path) -> None:
    """``fetch LABEL --audio`` (real Whisper on espeak-ng speech) | ``register-transcript -``
    | status (unverified: attach the recording) | attach-media | status: the receipts bind
    to the recorded media digest."""
    assert shutil.which("espeak-ng"), "espeak-ng is required"
    vault = tmp_path / "vault"
    (vault / "transcripts").mkdir(parents=True)
    (vault / "recordings").mkdir()
    talk = {"schema_version": 5, "filename": "2024-05-01-meetup.md", "status": "pending"}
    db = write_current_database(vault, [talk])
    speech = vault / "recordings" / "talk.wav"
    # two sentences (about 5 s) keep the Whisper run near 1.7 s; the text is not the subject
    spoken = "Good morning. Every speaker needs a clear opening and a strong closing."
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(speech), spoken], check=True)
    with wave.open(str(speech)) as audio:
        seconds = audio.getnframes() / audio.getframerate()
    fetched = run_cli(
        "rvault-transcript", "fetch", "meetup", "--audio", speech,
        "--out", vault / "transcripts" / "meetup.txt", "--existing-source", "unknown",
        "--duration-seconds", f"{seconds:.3f}",
    )  # fmt: skip
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    assert fetched.json["method"] == "whisper" and fetched.json["source"]["kind"] == "local_media"
    args = ("register-transcript", db, "--talk", "2024-05-01-meetup.md", "--fetch-result", "-")
    _applied(*args, input_bytes=fetched.stdout.encode("utf-8"))
    (stored,) = json.loads(db.read_bytes())["talks"]
    assert (stored["transcript_path"], stored["transcript_source"]) == (
        "transcripts/meetup.txt",
        "whisper",
    )
    # the receipts bind media the database does not name yet: unverified, attach it
    status = run_cli("rvault-db", "status", db, "--format", "json")
    (row,) = status.json["talks"]
    assert (row["transcript"]["state"], row["transcript"]["quality"]) == (
        "unverified",
        "owner_context_missing",
    ), row
    assert row["next_action"]["code"] == "attach_media"
    attached = _applied("attach-media", db, "--talk", "2024-05-01-meetup.md", speech)
    assert attached.json["changes"][0]["after"]["path"] == "recordings/talk.wav"
    (stored,) = json.loads(db.read_bytes())["talks"]
    assert stored["local_media"]["sha256"] == fetched.json["source"]["media_sha256"]
    # every reader builds the owner context from the attached recording: verified
    status = run_cli("rvault-db", "status", db, "--format", "json")
    (row,) = status.json["talks"]
    assert (row["transcript"]["state"], row["transcript"]["quality"]) == (
        "valid",
        "quality_current",
    ), row
    assert row["media"] == {"path": "recordings/talk.wav", "state": "current"}
    owner = api.OwnerContext(**tracking_api.transcript_owner(stored).kwargs())
    assert api.read_evidence(vault / "transcripts" / "meetup.txt", owner=owner).plain_quote
    # a fetch of other bytes is not this talk's transcript
    other = vault / "recordings" / "other.wav"
    subprocess.run(["espeak-ng", "-s", "140", "-w", str(other), spoken], check=True)
    claim = json.loads(fetched.stdout)
    claim["source"]["media_sha256"] = hashlib.sha256(other.read_bytes()).hexdigest()
    before = db.read_bytes()
    refused = run_cli("rvault-db", *args, input_bytes=json.dumps(claim).encode("utf-8"))
    assert refused.returncode == 2, refused.stdout
    assert refused.json["error"]["code"] == "fetch_result_media_mismatch", refused.stdout
    assert db.read_bytes() == before
