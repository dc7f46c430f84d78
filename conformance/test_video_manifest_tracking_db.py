"""video-manifest v3: video-extraction -> tracking-db (source capabilities).

tracking-db decides whether a talk has usable video-extracted slides from
the stored manifest: current and valid (context PDF usable), trusted
(authored-slide PDF available), legacy (re-extract) or future (no usable
prior state). This runs the installed ``rvault-video extract`` on a video
generated here and classifies the result through the public reader
``rvault_video_extraction.api``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rvault_contracts.schemas import schema_issues
from rvault_testkit.plugin import run_cli
from rvault_video_extraction import api
from rvault_video_extraction.synthetic import TalkSpec, distinct_slides, timeline, write_mp4v

COVERS = [("video-manifest", "video-extraction", "tracking-db")]
VIDEO_ID = "AbCdEfGhI_1"


def _extract(tmp_path: Path, *region: str) -> tuple[Path, dict[str, Any]]:
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True)
    video = outdir / f"{VIDEO_ID}.mp4"
    write_mp4v(TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3))), video)
    result = run_cli("rvault-video", "extract", video, outdir, VIDEO_ID, "--fps", "2", *region)
    assert result.returncode == 0, result.stdout + result.stderr
    stored = json.loads((outdir / f"{VIDEO_ID}.video-extraction.json").read_text())
    assert stored == result.json
    return root, result.json


def test_capability_classes_of_real_and_stored_manifests(tmp_path: Path) -> None:
    root, manifest = _extract(tmp_path)
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
    root, manifest = _extract(tmp_path)
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    assert api.read_manifest(path, vault_root=root).status == "current"
    moved = dict(manifest, total_frames_extracted=1)
    assert "frame_count_inconsistent" in api.validate_manifest(moved, vault_root=root).codes
