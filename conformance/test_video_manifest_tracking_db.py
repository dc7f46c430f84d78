"""video-manifest v4: video-extraction -> tracking-db (source capabilities).

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
    assert schema_issues("video-manifest", 4, manifest) == []
    current = api.validate_manifest(manifest, vault_root=root)
    assert (current.status, current.usable, current.trusted) == ("current", True, False)
    legacy = {k: v for k, v in manifest.items() if k not in ("schema_version", "pipeline_version")}
    assert api.validate_manifest(legacy, vault_root=root).status == "legacy"
    assert (
        api.validate_manifest({**manifest, "schema_version": 2}, vault_root=root).status == "legacy"
    )
    future = api.validate_manifest({**manifest, "schema_version": 5}, vault_root=root)
    assert (future.status, future.usable) == ("future", False)
    # v3 (no source receipt) stays readable, fully validated, never trusted.
    v3 = {k: v for k, v in manifest.items() if k != "source_receipt"}
    v3["schema_version"] = 3
    v3["artifacts"] = [
        {k: v for k, v in a.items() if k not in ("sha256", "size_bytes")} for a in v3["artifacts"]
    ]
    assert schema_issues("video-manifest", 3, v3) == []
    legacy3 = api.validate_manifest(v3, vault_root=root)
    assert (legacy3.status, legacy3.usable, legacy3.trusted) == ("legacy", True, False)
    assert legacy3.codes == ["source_receipt_missing"]
    assert api.check_sources(v3, vault_root=root).state == "unbound"


def test_a_replaced_recording_is_stale_in_rvault_db_status(tmp_path: Path) -> None:
    """The reader status calls re-checks the recording's digest: replaced bytes are stale."""
    from _support import pending_talk, write_current_database
    from rvault_testkit.plugin import run_cli

    root, manifest = extract(tmp_path, "--region", "0.03,0.12,0.66,0.88", "--region-verified")
    talk = pending_talk(root, "2024-01-01-a.md", "a transcript\n")
    talk["youtube_id"] = VIDEO_ID
    db = write_current_database(root, [talk])

    def video_row() -> dict[str, object]:
        result = run_cli("rvault-db", "status", db, "--format", "json")
        assert result.returncode == 0, result.stdout + result.stderr
        return result.json["talks"][0]["video"]

    assert video_row()["status"] == "current" and video_row()["trusted"] is True
    recording = Path(manifest["source_video_path"])
    size = recording.stat().st_size
    recording.write_bytes(b"\0" * size)  # same size: only the digest can tell
    assert (video_row()["status"], video_row()["trusted"]) == ("stale", False)
    check = api.check_sources(manifest, vault_root=root)
    assert (check.state, [i.code for i in check.issues]) == ("stale", ["source_changed"])


def test_stored_manifest_file_reads_strictly(tmp_path: Path) -> None:
    root, manifest = extract(tmp_path)
    path = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    assert api.read_manifest(path, vault_root=root).status == "current"
    moved = dict(manifest, total_frames_extracted=1)
    assert "frame_count_inconsistent" in api.validate_manifest(moved, vault_root=root).codes


def test_a_promoted_slide_region_is_recorded_as_slides_local_path(tmp_path: Path) -> None:
    """video-extraction promotes the trusted PDF; tracking-db records the path it prints."""
    import hashlib

    from _support import pending_talk, write_current_database
    from rvault_testkit.plugin import run_cli

    root, _ = extract(tmp_path, "--region", "0.03,0.12,0.66,0.88", "--region-verified")
    manifest = root / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.video-extraction.json"
    promoted = run_cli("rvault-video", "promote", manifest, "--vault-root", root)
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    path = promoted.json["slides_local_path"]
    db = write_current_database(root, [pending_talk(root, "2024-01-01-talk.md", "a transcript\n")])
    args = ("register-slides", db, "--talk", "2024-01-01-talk.md", root / path)
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout
    applied = run_cli("rvault-db", *args, "--apply", "--expected-sha256", dry.json["input_sha256"])
    assert applied.returncode == 0, applied.stdout
    assert applied.json["output_sha256"] == hashlib.sha256(db.read_bytes()).hexdigest()
    talk = run_cli("rvault-db", "read", db).json["database"]["talks"][0]
    assert talk["slides_local_path"] == f"slides/{VIDEO_ID}.pdf"
    assert {"capability": "local_pdf", "path": path, "root": "vault"} in talk["source_capabilities"]
