"""No silent downgrade: ``extract`` replaces an existing manifest only with ``--force``.

Re-running without flags on a verified talk used to overwrite its trusted
manifest with an untrusted candidate. Now the run is refused
(``manifest_exists``, exit 2) before anything is decoded or written, the
message names what would be lost (the trusted verified region) and the hint
the flag; with ``--force`` the manifest is replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rvault_video_extraction.api import read_manifest
from rvault_video_extraction.extract import output_names

SCRIPT = "rvault-video"


def test_a_trusted_manifest_is_not_replaced_without_force(
    cli: Callable[..., Any],
    extracted: tuple[Path, dict[str, Any]],
    snapshot_tree: Callable[[Path], Any],
) -> None:
    root, manifest = extracted
    video = Path(manifest["source_video_path"])
    outdir = video.parent
    video_id = manifest["source_video_id"]
    manifest_file = outdir / output_names(video_id)[2]
    before = snapshot_tree(root)
    refused = cli(SCRIPT, "extract", video, outdir, video_id, "--fps", "2")
    assert refused.returncode == 2, refused.stdout
    error = refused.json["error"]
    assert error["code"] == "manifest_exists" and error["path"] == str(manifest_file)
    assert "TRUSTED" in error["message"] and "verified manual slide region" in error["message"]
    assert "--force" in refused.json["hint"]
    assert snapshot_tree(root) == before  # bytes and inodes of every output, no leftovers
    assert read_manifest(manifest_file, vault_root=root).trusted
    replaced = cli(SCRIPT, "extract", video, outdir, video_id, "--fps", "2", "--force")
    assert replaced.returncode == 0, replaced.stdout + replaced.stderr
    assert replaced.json["slide_region_method"] == "auto"
    assert not read_manifest(manifest_file, vault_root=root).trusted


def test_any_existing_manifest_needs_force_even_an_unreadable_one(
    cli: Callable[..., Any], talk_vault: Callable[..., Any], snapshot_tree: Callable[[Path], Any]
) -> None:
    from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline

    vault = talk_vault(TalkSpec(layout="fullscreen", segments=timeline(distinct_slides(2))))
    manifest_file = vault.outdir / output_names(vault.video_id)[2]
    manifest_file.write_bytes(b"{not json")
    before = snapshot_tree(vault.root)
    refused = cli(SCRIPT, "extract", vault.video, vault.outdir, vault.video_id, "--fps", "2")
    assert refused.returncode == 2
    assert refused.json["error"]["code"] == "manifest_exists"
    assert "an unreadable manifest" in refused.json["error"]["message"]
    assert snapshot_tree(vault.root) == before
    forced = cli(
        SCRIPT, "extract", vault.video, vault.outdir, vault.video_id, "--fps", "2", "--force"
    )
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert read_manifest(manifest_file, vault_root=vault.root).status == "current"
