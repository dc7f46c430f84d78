"""An audio-only recording is never delivery video (issue 24), in validate and in persist.

The talk is a speaker's own podcast-style recording built by the real
pipeline (``recorded_talk.build_recorded_talk(video=False)``: espeak-ng
speech as a WAV, attached with ``add-talk --media``, captions bound to it by
``vtt-cleanup --media``, claimed). Its transcript has a current timing
receipt whose owner duration could bound a ``delivery_video`` range, which
is exactly the trap: a worker that writes a delivery_video receipt and a
video citation for it must be refused with ``delivery_video_unavailable``
(the spec binds a video interval to an artifact of the video that "was
directly reviewed"), by ``rvault-returns validate`` and by ``persist``
(dry run and apply, the database's bytes and inode unchanged), and the
owner-side binder (``VerifiedArtifacts.delivery_video``) refuses it too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from recorded_talk import DB, RecordedTalk, build_recorded_talk
from rvault_contracts.canonical import artifact_bytes, file_sha256
from rvault_returns_persistence.artifacts import resolve
from rvault_returns_persistence.delivery_video import missing_video
from rvault_returns_persistence.verified_artifacts import EvidenceRefusal, VerifiedArtifacts
from rvault_testkit.plugin import CliResult, run_cli
from test_scaffold_recorded_talk import assessments_asked, fill, read_talk, scaffold

RUN_DATE = "2026-12-01T13:00:00+00:00"
INSPECTION = '$["pattern_observations"]["source_inspection"]'
DETECTED = '$["pattern_observations"]["patterns_detected"][0]'


@pytest.fixture(scope="module")
def audio_only(tmp_path_factory: pytest.TempPathFactory) -> RecordedTalk:
    return build_recorded_talk(tmp_path_factory.mktemp("audio"), video=False)


@pytest.fixture(scope="module")
def video_claim(audio_only: RecordedTalk) -> dict[str, Any]:
    """The scaffold's valid return plus what a careless worker adds: the recording "watched"
    over its whole length and lightsaber (a delivery_video-only pattern) seen at 1-3 s."""
    result = scaffold(audio_only)
    document = fill(result.json, assessments_asked(result.stderr))
    observations = document["pattern_observations"]
    assert "delivery_video" not in observations["evidence_sources"]  # the scaffold is honest
    seconds = read_talk(audio_only)["local_media"]["duration_seconds"]
    observations["evidence_sources"].append("delivery_video")
    observations["source_inspection"].append(
        {"source": "delivery_video", "time_ranges": [[0, seconds]]}
    )
    observations["not_evaluable"] = [
        row for row in observations["not_evaluable"] if row["pattern_id"] != "lightsaber"
    ]
    observations["patterns_detected"] = [{
        "pattern_id": "lightsaber", "confidence": "moderate", "evidence_source": "delivery_video",
        "evidence": "The speaker points the laser at the second bullet while naming it.",
        "evidence_citations": [{"source": "delivery_video", "channel": "video",
                                "start_seconds": 1.0, "end_seconds": 3.0}],
    }]  # fmt: skip
    observations["pattern_score"] = {"patterns_used": 1, "antipatterns_detected": 0, "score": 1}
    return document


def write_return(talk: RecordedTalk, document: dict[str, Any]) -> str:
    (talk.home / "worker" / "return.json").write_bytes(artifact_bytes(document))
    return "worker/return.json"


def validate(talk: RecordedTalk, document: dict[str, Any]) -> CliResult:
    return run_cli("rvault-returns", "validate", write_return(talk, document), "--db", DB,
                   "--vault-root", "vault", "--member", talk.filename, cwd=talk.home)  # fmt: skip


def test_validate_refuses_delivery_video_from_an_audio_only_recording(
    audio_only: RecordedTalk, video_claim: dict[str, Any]
) -> None:
    found = resolve(audio_only.vault, read_talk(audio_only), deck_slides=None)
    assert found.video_duration is not None  # the timing receipt's duration: the old bound

    result = validate(audio_only, video_claim)
    assert result.returncode == 2, result.stdout
    errors = sorted((e["code"], e["path"]) for r in result.json["returns"] for e in r["errors"])
    assert errors == [
        ("citation_source_not_inspected", f'{DETECTED}["evidence_citations"][0]["source"]'),
        ("delivery_video_unavailable", f"{INSPECTION}[1]"),
        ("evidence_source_not_inspected", f'{DETECTED}["evidence_source"]'),
        ("gate_source_citation_missing", f'{DETECTED}["evidence_citations"]'),
    ]
    [unavailable] = [
        e for r in result.json["returns"] for e in r["errors"]
        if e["code"] == "delivery_video_unavailable"
    ]  # fmt: skip
    assert audio_only.media in unavailable["message"] and "audio only" in unavailable["message"]
    # the citation names the refusal, not a receipt the worker never wrote
    [cited] = [
        e for r in result.json["returns"] for e in r["errors"]
        if e["code"] == "citation_source_not_inspected"
    ]  # fmt: skip
    assert "no inspection receipt" not in cited["message"]
    assert cited["message"].startswith(
        "delivery_video cannot be cited: its inspection receipt was refused "
        f"(delivery_video_unavailable at {unavailable['path']}: the talk names no video"
    )
    assert audio_only.media in cited["message"] and "audio only" in cited["message"]
    # and so does the detection that names it as its evidence source
    [named] = [
        e for r in result.json["returns"] for e in r["errors"]
        if e["code"] == "evidence_source_not_inspected"
    ]  # fmt: skip
    assert named["message"] == cited["message"]


def test_persist_refuses_it_and_writes_nothing(
    audio_only: RecordedTalk,
    video_claim: dict[str, Any],
    tmp_path: Path,
    snapshot_tree: Callable,
) -> None:
    home = tmp_path / "copy"
    shutil.copytree(audio_only.home, home, symlinks=True)
    talk = RecordedTalk(home, audio_only.filename, audio_only.media, 0)
    returns = write_return(talk, video_claim)
    database = talk.vault / "tracking-database.json"
    before = snapshot_tree(talk.vault)  # bytes, inode, size and times of every file
    digest = file_sha256(database)
    for mode in ([], ["--apply", "--expected-sha256", digest]):
        result = run_cli("rvault-returns", "persist", DB, returns, "--run-date", RUN_DATE,
                         "--vault-root", "vault", *mode, cwd=home)  # fmt: skip
        assert result.returncode == 2, result.stdout
        refusal = result.json
        assert refusal["error"]["code"] == "returns_invalid", refusal
        unavailable = [e for e in refusal["errors"] if e["code"] == "delivery_video_unavailable"]
        assert [e["path"] for e in unavailable] == [f"{INSPECTION}[1]"]
        assert snapshot_tree(talk.vault) == before


def test_the_binder_refuses_the_timing_receipt_as_a_video(audio_only: RecordedTalk) -> None:
    talk = read_talk(audio_only)
    found = resolve(audio_only.vault, talk, deck_slides=None)
    evidence = VerifiedArtifacts(vault_root=audio_only.vault, pptx_root=None, talk=talk,
                                 found=found, pptx_record=None, path="$")  # fmt: skip
    assert evidence.transcript.timing is not None  # a timed artifact exists, and is no video
    with pytest.raises(EvidenceRefusal) as refused:
        evidence.bounded("delivery_video")
    assert refused.value.code == "delivery_video_unavailable"
    assert "attach-media" in refused.value.context["hint"]


def test_a_video_the_talk_names_or_films_is_available(
    audio_only: RecordedTalk, tmp_path: Path
) -> None:
    """A YouTube id or a video URL names a delivery video (its timing receipt may then bound
    the ranges); a replaced recording is named for what it is."""
    talk = read_talk(audio_only)
    found = resolve(audio_only.vault, talk, deck_slides=None)
    assert "no video stream" in (missing_video(audio_only.vault, talk, found) or "")
    assert missing_video(audio_only.vault, {**talk, "youtube_id": "dQw4w9WgXcQ"}, found) is None
    named = {**talk, "video_url": "https://vimeo.com/76979871"}
    assert missing_video(audio_only.vault, named, found) is None
    assert "no recording attached" in (missing_video(audio_only.vault, {}, found) or "")

    vault = tmp_path / "vault"
    shutil.copytree(audio_only.vault, vault, symlinks=True)
    with open(vault / audio_only.media, "ab") as recording:
        recording.write(b"\0" * 64)
    assert "media_stale" in (missing_video(vault, talk, found) or "")
