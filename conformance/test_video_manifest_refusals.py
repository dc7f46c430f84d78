"""video-manifest v4: what tracking-db and returns-persistence refuse.

One verified-region extraction by the installed ``rvault-video extract`` is
produced per module, in a vault whose talk (``youtube_id`` = the video) is
claimed by ``rvault-db`` and whose return is scaffolded by ``rvault-returns``
and completed as a video-extracted worker return carrying the manifest
unchanged in ``structured_data.video_extraction``.

- returns-persistence: its console script ``rvault-returns validate`` on
  that return, the manifest changed in one field (paths start at the manifest).
- tracking-db has no console script that reports manifest codes
  (``rvault-db status`` prints only status and trust): each case requires
  ``rvault-db status`` to drop the talk's trust and reads the code from the
  reader that status calls, ``api.read_manifest(path, vault_root=,
  expected_video_id=)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _queue_producer import claim
from _refusals import RefusalCase, assert_refused, cli_codes, mutated, refusal_cases, replaced
from _returns_producer import QUOTE, completed_return
from _support import pending_talk, write_current_database
from _video_producer import VIDEO_ID, extract
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.catalog import load_catalog
from rvault_testkit.plugin import run_cli
from rvault_video_extraction import api

COVERS = [
    ("video-manifest", "video-extraction", "tracking-db"),
    ("video-manifest", "video-extraction", "returns-persistence"),
]
REFUSALS = {
    ("video-manifest", "video-extraction", "tracking-db"): [
        ("frame_count_inconsistent", ["total_frames_extracted"], 1),
        ("video_id_mismatch", ["source_video_id"], "ZyXwVuTsR_2"),
        ("source_receipt_inconsistent", ["source_receipt", "vault_path"], "media/other.mp4"),
        ("source_receipt_inconsistent", ["source_receipt", "decode_complete"], False),
    ],
    ("video-manifest", "video-extraction", "returns-persistence"): [
        ("video_manifest_invalid", ["total_frames_extracted"], 1),
        ("video_manifest_invalid", ["review_required"], True),
        ("video_manifest_identity_mismatch", ["source_video_id"], "ZyXwVuTsR_2"),
        ("video_manifest_invalid", ["source_receipt", "size_bytes"], 1),
    ],
}


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(vault root, stored manifest file, manifest) of one verified-region extraction."""
    root, manifest = extract(
        tmp_path_factory.mktemp("video"), "--region", "0.03,0.12,0.66,0.88", "--region-verified"
    )
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    return root, path, manifest


@pytest.fixture(scope="module")
def video_return(produced: tuple[Path, Path, dict[str, Any]]) -> tuple[Path, dict[str, Any]]:
    """(database, completed video-extracted return) of the talk whose video was extracted."""
    root, _, manifest = produced
    lines = [QUOTE, *(f"line {n} of the talk" for n in range(1, 31))]
    talk = pending_talk(root, "2024-01-01-a.md", "\n".join(lines) + "\n")
    talk["youtube_id"] = VIDEO_ID
    db = write_current_database(root, [talk])
    claim(db, "2026-07-31T18:00:00+00:00",
          extra=("--catalog-fingerprint", load_catalog().fingerprint))  # fmt: skip
    ret = completed_return(db, "2024-01-01-a.md")
    ret["slide_source"] = "video_extracted"
    ret["clear_fields"] = ["slides_local_path"]  # nothing promoted: no older path survives
    ret.setdefault("structured_data", {})["video_extraction"] = manifest
    return db, ret


def _validate(db: Path, ret: dict[str, Any]) -> Any:
    batch = db.parent / "returns.json"
    batch.write_text(json.dumps([ret]), encoding="utf-8")
    return run_cli("rvault-returns", "validate", batch, "--db", db)


def test_produced_return_with_its_manifest_validates(
    video_return: tuple[Path, dict[str, Any]],
) -> None:
    result = _validate(*video_return)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _status_video(video_return[0]) == {
        "manifest": f"slides-rebuild/{VIDEO_ID}/{VIDEO_ID}.video-extraction.json",
        "status": "current",
        "trusted": True,
    }


def _status_video(db: Path) -> dict[str, Any]:
    """tracking-db's own console script: the talk's video row of ``rvault-db status``."""
    result = run_cli("rvault-db", "status", db, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    (row,) = result.json["talks"]
    return row["video"]


def _report(consumer: str, root: Path, path: Path, manifest: dict[str, Any]) -> Any:
    if consumer == "tracking-db":
        return api.read_manifest(path, vault_root=root, expected_video_id=VIDEO_ID)
    return api.validate_manifest(manifest, vault_root=root, probe_pdfs=True)


@pytest.mark.parametrize("consumer", ["tracking-db", "returns-persistence"])
def test_produced_manifest_is_trusted_by_both_api_readers(
    produced: tuple[Path, Path, dict[str, Any]], consumer: str
) -> None:
    root, path, manifest = produced
    assert schema_issues("video-manifest", 4, manifest) == []
    report = _report(consumer, root, path, manifest)
    assert (report.status, report.trusted, list(report.codes)) == ("current", True, [])


@pytest.mark.parametrize("case", refusal_cases(REFUSALS))
def test_consumer_refuses_one_invalid_field(
    produced: tuple[Path, Path, dict[str, Any]],
    video_return: tuple[Path, dict[str, Any]],
    case: RefusalCase,
) -> None:
    root, path, manifest = produced
    changed = mutated(manifest, case)
    if case.consumer == "returns-persistence":
        db, ret = video_return
        sent = json.loads(json.dumps(ret))
        sent["structured_data"]["video_extraction"] = changed
        assert_refused(case, cli_codes(_validate(db, sent)))
        return
    with replaced(path, changed):
        report = _report(case.consumer, root, path, changed)
        assert _status_video(video_return[0])["trusted"] is False
    assert not report.trusted
    assert json.loads(path.read_bytes()) == manifest
    assert_refused(case, report.codes)
