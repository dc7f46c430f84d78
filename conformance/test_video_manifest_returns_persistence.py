"""video-manifest v4: video-extraction -> returns-persistence.

returns-persistence may persist a video-extracted return only after it has
recomputed trust from the complete schema-v4 manifest, never from
``slide_source`` or an isolated artifact boolean. This runs the installed
``rvault-video extract`` on a video generated here and reads the manifest
back through the public reader ``rvault_video_extraction.api`` and the v4
schema: a verified manual crop is trusted (and its slide_region PDF is the one
that may be promoted to ``slides/{id}.pdf``), an auto crop is a candidate,
one forged flag breaks trust, and the recorded identity must match the
claimed talk.
"""

from __future__ import annotations

import copy
from pathlib import Path

from _video_producer import VIDEO_ID, extract
from rvault_contracts.schemas import schema_issues
from rvault_video_extraction import api

COVERS = [("video-manifest", "video-extraction", "returns-persistence")]


def test_verified_manual_crop_is_trusted_and_identity_bound(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path, "--region", "0.03,0.12,0.66,0.88", "--region-verified")
    assert schema_issues("video-manifest", 4, manifest) == []
    report = api.validate_manifest(manifest, vault_root=root, expected_video_id=VIDEO_ID)
    assert report.status == "current" and report.trusted
    slide_region = next(a for a in manifest["artifacts"] if a["artifact_scope"] == "slide_region")
    assert report.trusted_slide_region_path == slide_region["path"]
    assert set(report.pdf_sha256) == {a["path"] for a in manifest["artifacts"]}
    wrong_talk = api.validate_manifest(manifest, vault_root=root, expected_video_id="ZyXwVuTsR_2")
    assert not wrong_talk.trusted and "video_id_mismatch" in wrong_talk.codes


def test_auto_crop_is_context_only_and_flags_cannot_be_forged(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path)
    report = api.validate_manifest(manifest, vault_root=root, expected_video_id=VIDEO_ID)
    assert report.status == "current" and report.usable and not report.trusted
    assert manifest["review_required"] is True and manifest["slide_region_method"] == "auto"
    forged = copy.deepcopy(manifest)
    forged["review_required"] = False
    forged["review_reason"] = None
    forged["artifacts"][0]["trusted_for_authored_slide_analysis"] = True
    forged_report = api.validate_manifest(forged, vault_root=root)
    assert not forged_report.trusted
    assert {"review_inconsistent", "trust_inconsistent"} <= set(forged_report.codes)


def test_every_pdf_is_probed_against_its_page_count(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path, "--region", "0,0,1,1", "--region-verified")
    context = Path(manifest["artifacts"][1]["path"])
    context.write_bytes(Path(manifest["artifacts"][0]["path"]).read_bytes()[:200])
    report = api.validate_manifest(manifest, vault_root=root)
    assert not report.trusted and report.codes == ["artifact_changed"]
    assert report.status == "stale"
