"""Evidence replaced after an analysis: status shows the talk, normalize requeues it.

The vault's files are real: transcripts and their quality receipts written
by the transcript owner (``rvault-transcript vtt-cleanup`` on generated
captions), a PDF written by pypdf, a WAV written by the standard library.
A processed talk's ledger is bound to those bytes as persist binds it
(artifact path and SHA-256 per inspected source); then a file is replaced
the way a speaker would (a re-fetched transcript, another PDF, a re-recorded
talk) and every reader is asked. Refused or dry-run writes leave the
database's bytes and inode unchanged.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import wave
from pathlib import Path
from typing import Any

import pytest
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import example_pptx
from rvault_tracking_db import evidence_identity
from rvault_tracking_db.capabilities import SourceRoots
from rvault_tracking_db.evidence_identity import (
    EVIDENCE_IDENTITY_STALE,
    IdentityCheck,
    owner_receipts,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb

REFETCHED = "2023-01-01-refetched.md"
UNTOUCHED = "2023-02-01-untouched.md"
INSPECTION = '["pattern_observations"]["source_inspection"]'


def _captions(cues: int, said: str) -> str:
    blocks = ["WEBVTT\nKind: captions\nLanguage: en"]
    for i in range(cues):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        blocks.append(f"{at}.000 --> {at}.900\nwe {said} point {i} in detail now")
    return "\n\n".join(blocks) + "\n"


def _transcribe(vault: Path, name: str, said: str = "discuss") -> None:
    """The transcript owner writes ``transcripts/{name}.txt`` and its receipts (``--force``)."""
    captions = vault / "transcripts" / f"{name}.en.vtt"
    captions.parent.mkdir(parents=True, exist_ok=True)
    captions.write_text(_captions(60, said), encoding="utf-8")
    result = run_cli("rvault-transcript", "vtt-cleanup", captions,
                     vault / "transcripts" / f"{name}.txt", "--force")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="session")
def owner_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The transcript owner's output, made once: ``first/`` two transcripts with their
    receipts, ``again/`` the first one re-fetched with other words (copied in as is)."""
    made = tmp_path_factory.mktemp("owner")
    _transcribe(made / "first", "refetched")
    _transcribe(made / "first", "untouched")
    _transcribe(made / "again", "refetched", said="revisit")
    return made


def _copy_transcripts(source: Path, vault: Path) -> None:
    for path in (source / "transcripts").iterdir():
        target = vault / "transcripts" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _analysed(vault: Path, filename: str, name: str, **extra: Any) -> dict[str, Any]:
    """A processed talk whose ledger cites ``transcripts/{name}.txt`` and its quality receipt
    by the digests they have now, as persist records them."""
    transcript = f"transcripts/{name}.txt"
    talk = qb.processed_talk(filename, 3, transcript_path=transcript, **extra)
    row = talk["pattern_observations"]["source_inspection"][0]
    row["artifact_path"], row["artifact_sha256"] = transcript, _sha(vault / transcript)
    quality = f"transcripts/{name}.quality.json"
    row["quality_artifact_path"], row["quality_artifact_sha256"] = quality, _sha(vault / quality)
    for detection in talk["pattern_observations"]["patterns_detected"]:
        for citation in detection["evidence_citations"]:
            citation["artifact_path"], citation["artifact_sha256"] = (
                transcript,
                row["artifact_sha256"],
            )
    return talk


def _vault(tmp_path: Path, owner_files: Path) -> Path:
    vault = tmp_path / "vault"
    _copy_transcripts(owner_files / "first", vault)
    talks = [
        _analysed(vault, REFETCHED, "refetched", reprocess_generation=2),
        _analysed(vault, UNTOUCHED, "untouched"),
    ]
    return qb.write_db(vault, qb.database(talks))


def _status(db: Path) -> dict[str, dict[str, Any]]:
    result = run_cli("rvault-db", "status", db, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert schema_issues("db-status-report", 1, result.json) == []
    return {row["filename"]: row for row in result.json["talks"]}


def _normalize(db: Path, *args: str) -> Any:
    return run_cli("rvault-db", "queue", db, "normalize", *args)


def test_a_refetched_transcript_needs_reprocessing_and_normalize_requeues_it(
    owner_files: Path, tmp_path: Path, snapshot_file: Any
) -> None:
    db = _vault(tmp_path, owner_files)
    rows = _status(db)
    assert [rows[n]["next_action"]["code"] for n in (REFETCHED, UNTOUCHED)] == ["none", "none"]

    _copy_transcripts(owner_files / "again", db.parent)  # re-fetched: new words, receipts current
    rows = _status(db)
    row = rows[REFETCHED]
    assert row["transcript"]["state"] == "valid"  # its owner is content: only the analysis is stale
    talk_path = f'$["talks"][0]{INSPECTION}[0]'
    assert [(i["code"], i["path"]) for i in row["evidence_issues"]] == [
        ("evidence_identity_stale", f'{talk_path}["artifact_sha256"]'),
        ("evidence_identity_stale", f'{talk_path}["quality_artifact_sha256"]'),
    ]
    assert "transcripts/refetched.txt has other bytes now" in row["evidence_issues"][0]["message"]
    assert row["next_action"] == {
        "code": "normalize",
        "text": "reprocess: evidence changed after its analysis",
        "command": "rvault-db queue DB normalize (requeues it), then claim it",
    }
    assert rows[UNTOUCHED]["evidence_issues"] == []
    assert rows[UNTOUCHED]["next_action"]["code"] == "none"

    before = snapshot_file(db)
    dry = _normalize(db)
    assert dry.returncode == 0, dry.stdout
    assert schema_issues("queue-report", 1, dry.json) == []
    assert snapshot_file(db) == before  # a dry run writes nothing
    requeue = {c["path"]: c["after"] for c in dry.json["changes"] if c["filename"] == REFETCHED}
    assert {k: requeue[k] for k in requeue if not k.endswith('["source_capabilities"]')} == {
        '$["talks"][0]["status"]': "needs-reprocessing",
        '$["talks"][0]["reprocess_reason"]': "evidence_identity_stale",
        '$["talks"][0]["reprocess_generation"]': 3,
    }
    assert {"filename": REFETCHED, "path": f'{talk_path}["artifact_sha256"]',
            "code": "evidence_identity_stale"} in dry.json["review"]  # fmt: skip
    untouched = [c["path"] for c in dry.json["changes"] if c["filename"] == UNTOUCHED]
    assert untouched == ['$["talks"][1]["source_capabilities"]']  # derived, never requeued

    applied = _normalize(db, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout
    talks = {t["filename"]: t for t in qb.read_db(db)["talks"]}
    requeued = talks[REFETCHED]
    assert (requeued["status"], requeued["reprocess_reason"], requeued["reprocess_generation"]) == (
        "needs-reprocessing",
        "evidence_identity_stale",
        3,
    )
    assert talks[UNTOUCHED]["status"] == "processed"
    # requeued, it is claimable like any needs-reprocessing talk; status says so
    assert _status(db)[REFETCHED]["next_action"]["code"] == "claim"


def test_normalize_refused_on_other_bytes_leaves_the_database_unchanged(
    owner_files: Path, tmp_path: Path, snapshot_file: Any
) -> None:
    db = _vault(tmp_path, owner_files)
    _copy_transcripts(owner_files / "again", db.parent)
    before = snapshot_file(db)
    refused = _normalize(db, "--apply", "--expected-sha256", "0" * 64)
    assert refused.returncode == 2
    assert refused.json["error"]["code"] == "expected_sha256_mismatch"
    assert "hint" in refused.json
    assert snapshot_file(db) == before


def test_a_removed_or_linked_transcript_is_missing_evidence(
    owner_files: Path, tmp_path: Path
) -> None:
    db = _vault(tmp_path, owner_files)
    quality = db.parent / "transcripts" / "refetched.quality.json"
    quality.unlink()
    quality.symlink_to(db.parent / "transcripts" / "untouched.quality.json")
    (db.parent / "transcripts" / "untouched.txt").unlink()
    rows = _status(db)
    [linked] = rows[REFETCHED]["evidence_issues"]
    assert linked["path"].endswith('["quality_artifact_sha256"]')
    assert "is gone, a link or unreadable" in linked["message"]  # never followed
    assert [i["path"] for i in rows[UNTOUCHED]["evidence_issues"]] == [
        f'$["talks"][1]{INSPECTION}[0]["artifact_sha256"]'
    ]
    assert rows[UNTOUCHED]["next_action"]["code"] == "normalize"


def _pdf(path: Path, pages: int) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=320, height=180)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def test_a_replaced_slide_pdf_registered_before_identities_is_caught(
    owner_files: Path, tmp_path: Path
) -> None:
    """A PDF registered before ``slides_local_identity`` existed reads ``unbound`` (nothing to
    compare); the analysis's own identity still says it was replaced."""
    db = _vault(tmp_path, owner_files)
    document = qb.read_db(db)
    talk = document["talks"][1]
    pdf = _pdf(db.parent / "slides" / "deck.pdf", 3)
    talk["slides_local_path"] = "slides/deck.pdf"
    ledger = talk["pattern_observations"]
    ledger["evidence_sources"] = ["transcript", "static_slides"]
    ledger["source_inspection"].append(
        {"source": "static_slides", "page_ranges": [[1, 3]], "page_count": 3,
         "coverage_complete": True, "absence_capability_complete": True,
         "absence_capability_reason": "authorized_rendered_static", "artifact_root": "vault",
         "artifact_path": "slides/deck.pdf", "artifact_sha256": _sha(pdf)}
    )  # fmt: skip
    qb.write_db(db.parent, document)
    assert _status(db)[UNTOUCHED]["evidence_issues"] == []
    _pdf(pdf, 4)
    row = _status(db)[UNTOUCHED]
    assert row["slides"] == {"path": "slides/deck.pdf", "state": "unbound"}
    assert [i["path"] for i in row["evidence_issues"]] == [
        f'$["talks"][1]{INSPECTION}[1]["artifact_sha256"]'
    ]
    assert row["next_action"]["code"] == "normalize"


def _wav(path: Path, seconds: float, tone: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(8000)
        audio.writeframes(bytes([tone, 0]) * int(8000 * seconds))
    return path


def _recorded(path: Path, relative: str, seconds: float) -> dict[str, Any]:
    """A ``local_media`` v1 record of ``path`` as attach-media measures it."""
    st = path.stat()
    return {"schema_version": 1, "path": relative, "sha256": _sha(path),
            "size_bytes": st.st_size, "duration_seconds": seconds,
            "generation": {"inode": st.st_ino, "mtime_ns": st.st_mtime_ns}}  # fmt: skip


def _delivery_video_talk(vault: Path, recording: Path) -> dict[str, Any]:
    talk = _analysed(vault, UNTOUCHED, "untouched")
    talk["local_media"] = _recorded(recording, "recordings/meetup.wav", 2.0)
    ledger = talk["pattern_observations"]
    ledger["evidence_sources"] = ["transcript", "delivery_video"]
    ledger["source_inspection"].append(
        {"source": "delivery_video", "time_ranges": [[0, 2.0]], "duration_seconds": 2.0,
         "coverage_complete": True, "absence_capability_complete": False,
         "absence_capability_reason": "bare_delivery_video", "artifact_root": "vault",
         "artifact_path": "recordings/meetup.wav", "artifact_sha256": _sha(recording)}
    )  # fmt: skip
    return talk


def test_a_recording_is_judged_by_its_record_before_any_byte_is_hashed(
    owner_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    _copy_transcripts(owner_files / "first", vault)
    recording = _wav(vault / "recordings" / "meetup.wav", 2.0)
    talk = _delivery_video_talk(vault, recording)
    hashed: list[int] = []
    digest = evidence_identity.hashlib.file_digest

    def counting(handle: Any, name: str) -> Any:
        hashed.append(os.fstat(handle.fileno()).st_size)
        return digest(handle, name)

    monkeypatch.setattr(evidence_identity.hashlib, "file_digest", counting)
    receipts = owner_receipts(talk, None)
    check = IdentityCheck(SourceRoots(vault))
    assert check.stale(talk, receipts=receipts) == []
    # the transcript and its receipt were hashed; the measured recording, untouched, was not
    assert recording.stat().st_size not in hashed and len(hashed) == 2

    _wav(recording, 1.0)  # re-recorded: another size, stale without reading it
    hashed.clear()
    [stale] = IdentityCheck(SourceRoots(vault)).stale(talk, receipts=receipts)
    assert (stale.identity.path, stale.code, stale.actual_sha256) == (
        "recordings/meetup.wav", "evidence_changed", None,
    )  # fmt: skip
    assert recording.stat().st_size not in hashed

    _wav(recording, 2.0, tone=7)  # same size, other bytes: only the digest can tell
    [stale] = IdentityCheck(SourceRoots(vault)).stale(talk, receipts=receipts)
    assert stale.actual_sha256 == _sha(recording) and recording.stat().st_size in hashed
    # a talk that is not analysed has no analysis to be stale: no reader asks
    assert evidence_identity.is_analysed(talk)
    assert not evidence_identity.is_analysed({**talk, "status": "needs-reprocessing"})


def test_a_replaced_recording_of_an_analysed_talk_names_what_to_run(
    owner_files: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    _copy_transcripts(owner_files / "first", vault)
    recording = _wav(vault / "recordings" / "meetup.wav", 2.0)
    talk = _delivery_video_talk(vault, recording)
    (vault / "slides-rebuild" / "meetup" / "meetup.video-extraction.json").mkdir(parents=True)
    db = qb.write_db(vault, qb.database([talk]))
    assert _status(db)[UNTOUCHED]["next_action"]["code"] == "none"

    _wav(recording, 2.0, tone=9)  # the speaker re-recorded the talk over the file
    row = _status(db)[UNTOUCHED]
    assert row["media"] == {"path": "recordings/meetup.wav", "state": "media_stale"}
    assert row["evidence_issues"][0]["path"] == f'$["talks"][0]{INSPECTION}[1]["artifact_sha256"]'
    action = row["next_action"]
    assert action["code"] == "attach_media"
    assert action["text"].startswith("the recording changed after its analysis (media_stale)")
    typed, transcript = vault / "recordings" / "meetup.wav", vault / "transcripts" / "untouched.txt"
    assert action["command"].split("; ") == [
        f"rvault-db attach-media DB --talk {UNTOUCHED} {typed} (requeues the talk)",
        f"rvault-transcript fetch meetup --audio {typed} --out {transcript} "
        "--existing-source whisper --force",
        f"rvault-video extract {typed} {vault / 'slides-rebuild' / 'meetup'} meetup --force",
        "then claim it",
    ]


def _deck_talk(vault: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A processed talk whose ledger cites its deck's extraction, and the deck's catalog
    record binding the extraction to the deck's fingerprint (as record-deck stores it)."""
    deck = qb.write_pptx(vault / "decks" / "Deck.pptx")
    extraction = vault / "pptx-extraction" / "deck.json"
    extraction.parent.mkdir(parents=True)
    extraction.write_text('{"slides": [{"number": 1, "text": "Opening"}]}\n', encoding="utf-8")
    record = {**example_pptx(), "pptx_path": "decks/Deck.pptx", "talk_filename": UNTOUCHED}
    record["visual_evidence"] = {
        **record["visual_evidence"],
        "source_fingerprint": {"algorithm": "sha256", "digest": _sha(deck),
                               "size_bytes": deck.stat().st_size},
        "artifact": {"path": "pptx-extraction/deck.json", "sha256": _sha(extraction)},
    }  # fmt: skip
    talk = qb.processed_talk(UNTOUCHED, 2, pptx_path="decks/Deck.pptx")
    talk["pattern_observations"]["source_inspection"] = [
        {"source": "native_deck", "page_ranges": [[1, 1]], "page_count": 1,
         "coverage_complete": True, "absence_capability_complete": False,
         "absence_capability_reason": "bare_native_deck", "artifact_root": "vault",
         "artifact_path": "pptx-extraction/deck.json", "artifact_sha256": _sha(extraction)}
    ]  # fmt: skip
    return talk, record


def test_a_deck_edited_after_its_extraction_makes_the_cited_extraction_stale(
    tmp_path: Path,
) -> None:
    """As persist's deck-audit check: the extraction's bytes are unchanged, but the deck it
    describes is not (when the deck is there to read: a deck folder that is not mounted
    leaves the extraction as the evidence)."""
    vault = tmp_path / "vault"
    talk, record = _deck_talk(vault)
    receipts = owner_receipts(talk, record)
    assert IdentityCheck(SourceRoots(vault)).stale(talk, receipts=receipts) == []
    deck = vault / "decks" / "Deck.pptx"
    deck.write_bytes(deck.read_bytes() + b"edited")
    [stale] = IdentityCheck(SourceRoots(vault)).stale(talk, receipts=receipts)
    assert (stale.identity.path, stale.code, stale.made_from) == (
        "pptx-extraction/deck.json", "evidence_changed", "decks/Deck.pptx",
    )  # fmt: skip
    issue = stale.issue('$["talks"][3]')
    assert issue.path == f'$["talks"][3]{INSPECTION}[0]["artifact_sha256"]'
    assert "was made from decks/Deck.pptx, which has other bytes now" in issue.message
    # the same through status, where the pptx owner's verdict already read the deck
    db = qb.write_db(vault, {**qb.database([talk]), "pptx_catalog": [record]})
    row = _status(db)[UNTOUCHED]
    assert [i["path"] for i in row["evidence_issues"] if i["code"] == EVIDENCE_IDENTITY_STALE] == [
        issue.path.replace("[3]", "[0]", 1)
    ]
    deck.unlink()  # not there to read: the extraction stands
    assert IdentityCheck(SourceRoots(vault)).stale(talk, receipts=receipts) == []


def _killed_rewrite(transcript: Path, data: bytes) -> None:
    """The transcript owner's bundle write of new transcript bytes, killed (``os._exit`` in a
    forked child) after its renames and before its journal is removed: a torn bundle."""
    from rvault_contracts.writer import install_bundle, read_snapshot

    child = os.fork()
    if child == 0:  # pragma: no cover - the child never returns

        def killed(step: str) -> None:
            if step == "bundle_before_journal_removal":
                os._exit(137)

        names = {transcript.name: data}
        expected = {transcript.name: read_snapshot(transcript)}
        install_bundle(transcript.parent, names, expected=expected,
                       lock_target=transcript, fault=killed)  # fmt: skip
        os._exit(0)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 137


def test_a_torn_transcript_bundle_is_recovery_pending_never_stale(
    owner_files: Path, tmp_path: Path
) -> None:
    db = _vault(tmp_path, owner_files)
    transcript = db.parent / "transcripts" / "refetched.txt"
    _killed_rewrite(transcript, transcript.read_bytes() + b"a line of the interrupted write\n")
    row = _status(db)[REFETCHED]
    assert row["transcript"]["state"] == "recovery_pending"
    assert row["evidence_issues"] == []  # new bytes under a pending journal: not judged yet
    assert row["next_action"]["code"] == "recover_transcript"
    dry = _normalize(db)
    assert all(c["filename"] != REFETCHED or "status" not in c["path"] for c in dry.json["changes"])
    recovered = run_cli(*shlex.split(row["next_action"]["command"]))
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    # settled (the write rolled forward): now the analysis does describe other bytes
    assert [i["code"] for i in _status(db)[REFETCHED]["evidence_issues"]] == [
        "evidence_identity_stale"
    ]
