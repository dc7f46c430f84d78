"""video-manifest v3: video-extraction -> tracking-db (source capabilities).

tracking-db decides whether a talk has usable video-extracted slides from
the stored manifest: current and valid (context PDF usable), trusted
(authored-slide PDF available), legacy (re-extract) or future (no usable
prior state). This runs the installed ``rvault-video extract`` on a video
generated here and classifies the result through the public reader
``rvault_video_extraction.api``.
"""

from __future__ import annotations

from pathlib import Path

from _video_producer import VIDEO_ID, extract
from rvault_contracts.schemas import schema_issues
from rvault_video_extraction import api

COVERS = [("video-manifest", "video-extraction", "tracking-db")]


def test_capability_classes_of_real_and_stored_manifests(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path)
    assert schema_issues("video-manifest", 3, manifest) == []
    current = api.validate_manifest(manifest, vault_root=root)
    assert (current.status, current.usable, current.trusted) == ("current", True, False)
    legacy = {k: v for k, v in manifest.items() if k not in ("schema_version", "pipeline_version")}
    assert api.validate_manifest(legacy, vault_root=root).status == "legacy"
    assert (
        api.validate_manifest({**manifest, "schema_version": 2}, vault_root=root).status == "legacy"
    )
    future = api.validate_manifest({**manifest, "schema_version": 4}, vault_root=root)
    assert (future.status, future.usable) == ("future", False)


def test_stored_manifest_file_reads_strictly(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path)
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    assert api.read_manifest(path, vault_root=root).status == "current"
    moved = dict(manifest, total_frames_extracted=1)
    assert "frame_count_inconsistent" in api.validate_manifest(moved, vault_root=root).codes
