"""A recording already inside the vault is extracted where it is, never copied.

A speaker's own talk lives wherever they keep it in the vault (e.g.
``media/talk.mp4``, registered by ``rvault-db attach-media``): ``extract``
reads it in place, writes its outputs to OUTDIR, and the manifest's
``source_receipt.vault_path`` names the file actually decoded. A recording
outside the vault or reached through a symlink is refused with a code and a
hint, and nothing is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)
from rvault_video_extraction.api import check_sources, read_manifest

SCRIPT = "rvault-video"
VIDEO_ID = "my-own-talk"
REGION = ("--region", "0.03,0.12,0.66,0.88", "--region-verified")


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "talk.mp4"
    return write_mp4v(TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3))), path)


def test_a_local_recording_is_read_in_place_and_named_in_the_receipt(
    cli: Callable[..., Any], recording: Path, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    media = root / "media" / "2024 conference"
    media.mkdir(parents=True)
    local = media / "talk.mp4"
    local.write_bytes(recording.read_bytes())
    outdir = root / "slides-rebuild" / VIDEO_ID
    # Paths typed on the command line are relative to the working directory.
    relative = (local.relative_to(tmp_path), outdir.relative_to(tmp_path))
    result = cli(SCRIPT, "extract", *relative, VIDEO_ID, "--fps", "2", *REGION, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = result.json
    receipt = manifest["source_receipt"]
    assert receipt["vault_path"] == "media/2024 conference/talk.mp4"
    assert manifest["source_video_path"] == str(local.resolve())
    assert receipt["sha256"] == hashlib.sha256(local.read_bytes()).hexdigest()
    assert not (outdir / f"{VIDEO_ID}.mp4").exists()  # not copied to the contract path
    assert not [p.name for p in outdir.iterdir() if p.suffix == ".mp4"]
    report = read_manifest(outdir / f"{VIDEO_ID}.video-extraction.json", vault_root=root)
    assert report.status == "current" and report.trusted
    local.write_bytes(local.read_bytes()[:-1])  # the speaker re-exports the talk
    assert check_sources(manifest, vault_root=root).state == "stale"


def test_a_recording_outside_the_vault_is_refused_with_a_hint(
    cli: Callable[..., Any],
    recording: Path,
    tmp_path: Path,
    snapshot_tree: Callable[[Path], Any],
) -> None:
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True)
    before = snapshot_tree(root)
    result = cli(SCRIPT, "extract", recording, outdir, VIDEO_ID, "--fps", "2")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "outside_vault_root"
    assert "into the vault" in result.json["hint"]
    assert snapshot_tree(root) == before


def test_a_symlinked_recording_is_refused_with_a_hint(
    cli: Callable[..., Any],
    recording: Path,
    tmp_path: Path,
    snapshot_tree: Callable[[Path], Any],
) -> None:
    root = tmp_path / "vault"
    (root / "media").mkdir(parents=True)
    real = root / "media" / "talk.mp4"
    real.write_bytes(recording.read_bytes())
    link = root / "media" / "link.mp4"
    link.symlink_to(real)
    outdir = root / "slides-rebuild" / VIDEO_ID
    before = snapshot_tree(root)
    result = cli(SCRIPT, "extract", link, outdir, VIDEO_ID, "--fps", "2")
    assert result.returncode == 2
    assert result.json["error"]["code"] == "symlink_refused"
    assert result.json["error"]["path"] == str(link)
    assert "the file the link points to" in result.json["hint"]
    assert snapshot_tree(root) == before
