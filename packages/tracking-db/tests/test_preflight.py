"""``rvault-db preflight``: each integrity fault is one coded finding at its JSON path.

Every vault here is built from the spec's example talk (which carries a
``source_identity`` v1 and a ``source_rejections`` ledger) or the queue
builders, with one fault changed in; the run is read-only (the database's
bytes and inode are asserted unchanged) and offline (no provider is asked).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _queue_builders as qb
import pytest
from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_testkit.tracking_db.samples import example_talk

YT = "dQw4w9WgXcQ"
OTHER = "AbCdEfGhI_1"


def _talk(**changes: Any) -> dict[str, Any]:
    """The spec's processed example talk, with its local artifacts on disk (see _vault)."""
    talk = example_talk()
    for name in ("pptx_path", "slides_local_path", "slides_url", "google_drive_id"):
        talk.pop(name)
    talk["slide_source"] = "none"
    talk["speakers"] = ["Speaker Name"]
    talk.update(changes)
    return talk


def _vault(tmp_path: Path, talks: list[dict[str, Any]], **config: Any) -> Path:
    vault = tmp_path / "vault"
    qb.write_transcript(vault, f"transcripts/{YT}.txt")
    return qb.write_db(vault, qb.database(talks, **config))


def _preflight(db: Path, snapshot_file: Any, target: Path | None = None) -> dict[str, Any]:
    before = snapshot_file(db)
    result = run_cli("rvault-db", "preflight", target or db)
    assert result.returncode in (0, 3), result.stdout
    report = result.json
    assert schema_issues("db-preflight-report", 1, report) == []
    assert (result.returncode == 0) == report["ok"] == (report["blocking_count"] == 0)
    assert snapshot_file(db) == before
    return report


def _blocking(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "blocking"}


def test_the_spec_example_passes_with_the_vault_root_or_the_database(
    tmp_path: Path, snapshot_file: Any
) -> None:
    db = _vault(tmp_path, [_talk()])
    report = _preflight(db, snapshot_file, target=db.parent)
    assert report["ok"] is True and report["talk_count"] == 1
    assert report["database"] == str(db) and report["vault_root"] == str(db.parent)
    assert _preflight(db, snapshot_file)["findings"] == report["findings"]


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"youtube_id": OTHER}, "youtube_id_mismatch", '["youtube_id"]'),
        (
            {"title": "Kubernetes Cost Myths"},
            "source_identity_title_mismatch",
            '["source_identity"]["title"]',
        ),
        (
            {"speakers": ["Ada Lovelace"]},
            "source_identity_speaker_mismatch",
            '["source_identity"]["speakers"]',
        ),
        (
            {"date": "2023-04-10"},
            "source_identity_recorded_date_mismatch",
            '["source_identity"]["recorded_date"]',
        ),
        (
            {"duration_seconds": 1200},
            "source_identity_duration_mismatch",
            '["source_identity"]["duration_seconds"]',
        ),
    ],
)
def test_a_catalog_claim_the_recorded_identity_contradicts_is_blocking(
    tmp_path: Path, snapshot_file: Any, changes: dict[str, Any], code: str, field: str
) -> None:
    db = _vault(tmp_path, [_talk(**changes)])
    report = _preflight(db, snapshot_file)
    assert (code, f'$["talks"][0]{field}') in _blocking(report)
    finding = next(f for f in report["findings"] if f["code"] == code)
    assert finding["filename"] == "2024-04-10-talk-slug.md" and finding["talk_index"] == 0


def test_identity_values_are_compared_not_trusted(tmp_path: Path, snapshot_file: Any) -> None:
    identity = dict(_talk()["source_identity"])
    identity.update(
        video_id=OTHER, webpage_video_id=YT, upload_date="2024-04-01", duration_seconds=-5
    )
    report = _preflight(_vault(tmp_path, [_talk(source_identity=identity)]), snapshot_file)
    sid = '$["talks"][0]["source_identity"]'
    assert _blocking(report) == {
        ("source_identity_video_mismatch", f'{sid}["video_id"]'),
        ("source_identity_invalid", f'{sid}["webpage_video_id"]'),
        ("source_identity_upload_predates_catalog", f'{sid}["upload_date"]'),
        ("source_identity_invalid", f'{sid}["duration_seconds"]'),
    }


def test_uploader_and_upload_date_never_stand_in_for_speaker_or_recording(
    tmp_path: Path, snapshot_file: Any
) -> None:
    """A provider-facts-only capture (no speakers, no recorded_date) is warnings, and the
    uploader's name matching the speaker proves nothing."""
    identity = dict(_talk()["source_identity"])
    del identity["speakers"], identity["recorded_date"]
    identity["uploader"] = "Speaker Name"
    report = _preflight(_vault(tmp_path, [_talk(source_identity=identity)]), snapshot_file)
    assert report["ok"] is True
    warned = {(f["code"], f["path"]) for f in report["findings"]}
    assert (
        "source_identity_evidence_missing",
        '$["talks"][0]["source_identity"]["speakers"]',
    ) in warned


def test_a_duplicate_upload_needs_a_relation(tmp_path: Path, snapshot_file: Any) -> None:
    dup = qb.remote_talk("2024-05-01-dup.md", YT)
    report = _preflight(_vault(tmp_path, [_talk(), dup]), snapshot_file)
    assert _blocking(report) == {("duplicate_recording", '$["talks"][1]["video_url"]')}
    related = dict(
        dup, source_relation={"type": "duplicate", "target_filename": "2024-04-10-talk-slug.md"}
    )
    assert _preflight(_vault(tmp_path, [_talk(), related]), snapshot_file)["ok"] is True
    wrong = dict(related, source_relation={"type": "duplicate", "target_filename": "nope.md"})
    report = _preflight(_vault(tmp_path, [_talk(), wrong]), snapshot_file)
    assert (
        "source_relation_invalid",
        '$["talks"][1]["source_relation"]["target_filename"]',
    ) in _blocking(report)


def test_an_active_source_the_ledger_rejected_is_blocking(
    tmp_path: Path, snapshot_file: Any
) -> None:
    rejected = "https://youtu.be/AAAAAAAAAAA"
    talk = _talk(video_url=rejected, youtube_id="AAAAAAAAAAA", source_identity=None)
    report = _preflight(_vault(tmp_path, [talk]), snapshot_file)
    assert ("rejected_source_active", '$["talks"][0]["video_url"]') in _blocking(report)


def test_a_missing_artifact_blocks_a_completed_talk_and_warns_a_pending_one(
    tmp_path: Path, snapshot_file: Any
) -> None:
    done = _talk(transcript_path="transcripts/gone.txt")
    pending = qb.pending_talk("2024-06-01-new.md", transcript_path="transcripts/later.txt")
    report = _preflight(_vault(tmp_path, [done, pending]), snapshot_file)
    by_talk = {(f["talk_index"], f["code"], f["severity"]) for f in report["findings"]}
    assert (0, "claimed_artifact_missing", "blocking") in by_talk
    assert (1, "claimed_artifact_missing", "warning") in by_talk


def test_a_damaged_registered_pdf_is_blocking(tmp_path: Path, snapshot_file: Any) -> None:
    vault = tmp_path / "vault"
    (vault / "slides").mkdir(parents=True)
    (vault / "slides" / f"{YT}.pdf").write_bytes(b"not a pdf at all")
    talk = _talk(slides_local_path=f"slides/{YT}.pdf", slide_source="pdf")
    report = _preflight(_vault(tmp_path, [talk]), snapshot_file)
    finding = next(f for f in report["findings"] if f["code"] == "claimed_artifact_unreadable")
    assert finding["severity"] == "blocking"
    assert finding["path"] == '$["talks"][0]["slides_local_path"]'
    assert finding["actual"]["reason_code"] == "malformed"


@pytest.mark.parametrize(
    ("value", "code"),
    [("C:vault", "vault_root_config_invalid"), ("/elsewhere", "vault_root_authority_mismatch")],
)
def test_an_invalid_root_assertion_is_reported_not_refused(
    tmp_path: Path, snapshot_file: Any, value: str, code: str
) -> None:
    db = _vault(tmp_path, [_talk()], vault_storage_path=value)
    report = _preflight(db, snapshot_file)
    assert _blocking(report) == {(code, '$["config"]["vault_storage_path"]')}
    assert value not in str(report["findings"])  # the rejected locator is never echoed
    assert report["talk_count"] == 1  # the talks were still checked


def test_an_unreadable_database_is_one_blocking_finding(tmp_path: Path) -> None:
    result = run_cli("rvault-db", "preflight", tmp_path)
    assert result.returncode == 3
    report = result.json
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("database_unusable", "$")]
    assert report["findings"][0]["actual"] == {"codes": ["database_missing"]}


def test_a_pdf_with_an_envelope_but_no_page_tree_fails_the_owner_probe(
    tmp_path: Path, snapshot_file: Any
) -> None:
    """The header/end-marker checker passes it; the video owner's bounded probe does not."""
    from rvault_testkit.pptx_evidence.sample_decks import pdf_bytes

    vault = tmp_path / "vault"
    qb.write_pdf(vault / "slides" / "hollow.pdf")  # header, one object, trailer, %%EOF
    (vault / "slides" / "real.pdf").write_bytes(pdf_bytes(3))
    hollow = _talk(slides_local_path="slides/hollow.pdf", slide_source="pdf")
    real = _talk(
        filename="2024-04-11-real.md",
        slides_local_path="slides/real.pdf",
        slide_source="pdf",
        youtube_id=None,
        video_url=None,
        source_identity=None,
    )
    report = _preflight(_vault(tmp_path, [hollow, real]), snapshot_file)
    probe = [f for f in report["findings"] if f["code"] == "claimed_pdf_invalid"]
    assert [(f["talk_index"], f["severity"], f["path"]) for f in probe] == [
        (0, "blocking", '$["talks"][0]["slides_local_path"]')
    ]
    assert probe[0]["actual"]["reason_code"].startswith("pdf_")


def test_video_provenance_is_asked_of_the_video_owner(tmp_path: Path, snapshot_file: Any) -> None:
    """Video-extracted slides need a current manifest; a broken one is a fault."""
    done = _talk(slide_source="video_extracted")
    db = _vault(tmp_path, [done])
    report = _preflight(db, snapshot_file)
    assert ("video_extraction_provenance_missing", '$["talks"][0]["slide_source"]') in _blocking(
        report
    )
    manifest = db.parent / "slides-rebuild" / YT / f"{YT}.video-extraction.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"schema_version": 4}')
    report = _preflight(db, snapshot_file)
    finding = next(f for f in report["findings"] if f["code"].startswith("video_extraction"))
    assert (finding["code"], finding["severity"]) == (
        "video_extraction_provenance_invalid",
        "blocking",
    )
    assert finding["actual"]["manifest"] == f"slides-rebuild/{YT}/{YT}.video-extraction.json"
