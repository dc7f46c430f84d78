"""Manifest v4 binds the slides to the recording's bytes.

A recording cut to a third of its bytes (index first, so it still opens and
declares its full duration) is refused as ``video_decode_incomplete`` with a
hint and nothing written, even with ``--region-verified``; kept with
``--allow-incomplete`` it is recorded incomplete and never trusted, and the
flag cannot be forged. A recording or PDF replaced after extraction makes
the manifest ``stale``: ``rvault-video validate`` refuses it
(``manifest_stale``) and ``api.check_sources`` names what changed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    remux_faststart,
    timeline,
    truncated_copy,
    write_mp4v,
)
from rvault_video_extraction.api import check_sources, read_manifest, validate_manifest

SCRIPT = "rvault-video"
VIDEO_ID = "CutTalk_1"
REGION = ("--region", "0.03,0.12,0.66,0.88", "--region-verified")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 4-slide talk: OpenCV's file (index last), its faststart remux, and both cut to 1/3."""
    base = tmp_path_factory.mktemp("recordings")
    plain = write_mp4v(
        TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(4))), base / "plain.mp4"
    )
    faststart = remux_faststart(plain, base / "faststart.mp4")
    return {
        "faststart": faststart,
        "cut_faststart": truncated_copy(faststart, base / "cut-faststart.mp4", 1 / 3),
        "cut_plain": truncated_copy(plain, base / "cut-plain.mp4", 1 / 3),
    }


def _vault(tmp_path: Path, recording: Path) -> tuple[Path, Path, Path]:
    """(vault root, OUTDIR, video at the contract path) holding a copy of ``recording``."""
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True)
    video = outdir / f"{VIDEO_ID}.mp4"
    video.write_bytes(recording.read_bytes())
    return root, outdir, video


def _extract(cli: Callable[..., Any], video: Path, outdir: Path, *extra: str) -> Any:
    return cli(SCRIPT, "extract", video, outdir, VIDEO_ID, "--fps", "2", *extra)


def test_a_truncated_recording_is_refused_even_when_the_region_is_verified(
    cli: Callable[..., Any],
    recordings: dict[str, Path],
    tmp_path: Path,
    snapshot_tree: Callable[[Path], Any],
) -> None:
    root, outdir, video = _vault(tmp_path, recordings["cut_faststart"])
    before = snapshot_tree(root)
    result = _extract(cli, video, outdir, *REGION)
    assert result.returncode == 2, result.stdout + result.stderr
    error = result.json["error"]
    assert error["code"] == "video_decode_incomplete" and error["path"] == str(video)
    assert "declares 10 s" in error["message"] and "packets end at" in error["message"]
    assert "--allow-incomplete" in result.json["hint"]
    assert snapshot_tree(root) == before


def test_a_recording_cut_before_its_index_does_not_open(
    cli: Callable[..., Any], recordings: dict[str, Path], tmp_path: Path
) -> None:
    _root, outdir, video = _vault(tmp_path, recordings["cut_plain"])
    result = _extract(cli, video, outdir, *REGION)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "video_unreadable"
    assert not (outdir / f"{VIDEO_ID}.video-extraction.json").exists()


def test_a_kept_incomplete_decode_is_never_trusted(
    cli: Callable[..., Any], recordings: dict[str, Path], tmp_path: Path
) -> None:
    root, outdir, video = _vault(tmp_path, recordings["cut_faststart"])
    result = _extract(cli, video, outdir, *REGION, "--allow-incomplete")
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = result.json
    receipt = manifest["source_receipt"]
    assert receipt["decode_complete"] is False
    assert receipt["container_duration_seconds"] == pytest.approx(10.0)
    assert receipt["video_stream"]["frame_count"] == 100  # as reported by the intact index
    assert receipt["demuxed_end_seconds"] < 5.0
    assert receipt["size_bytes"] == video.stat().st_size
    assert manifest["slide_region_verified"] is True
    assert manifest["review_required"] is True and "stopped short" in manifest["review_reason"]
    assert manifest["artifacts"][0]["trusted_for_authored_slide_analysis"] is False
    report = validate_manifest(manifest, vault_root=root)
    assert (report.status, report.usable, report.trusted) == ("current", True, False)
    refused = cli(SCRIPT, "validate", outdir / f"{VIDEO_ID}.video-extraction.json",
                  "--vault-root", root, "--require-trusted")  # fmt: skip
    assert refused.returncode == 2 and refused.json["error"]["code"] == "manifest_untrusted"
    # Claiming completeness (and trust) does not survive the rule on the recorded numbers.
    forged = copy.deepcopy(manifest)
    forged["source_receipt"]["decode_complete"] = True
    forged["review_required"], forged["review_reason"] = False, None
    forged["artifacts"][0]["trusted_for_authored_slide_analysis"] = True
    forged_report = validate_manifest(forged, vault_root=root)
    assert not forged_report.trusted
    assert "source_receipt_inconsistent" in forged_report.codes


@pytest.fixture
def trusted(
    cli: Callable[..., Any], recordings: dict[str, Path], tmp_path: Path
) -> tuple[Path, Path, dict[str, Any]]:
    """(vault root, manifest file, manifest) of a trusted extraction of the intact recording."""
    root, outdir, video = _vault(tmp_path, recordings["faststart"])
    result = _extract(cli, video, outdir, *REGION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.json["source_receipt"]["decode_complete"] is True
    path = outdir / f"{VIDEO_ID}.video-extraction.json"
    assert read_manifest(path, vault_root=root).trusted
    assert check_sources(result.json, vault_root=root).state == "current"
    return root, path, result.json


def test_a_replaced_recording_is_stale_for_validate_and_check_sources(
    cli: Callable[..., Any],
    trusted: tuple[Path, Path, dict[str, Any]],
    snapshot_tree: Callable[[Path], Any],
) -> None:
    root, path, manifest = trusted
    Path(manifest["source_video_path"]).write_bytes(b"not a video any more")
    report = read_manifest(path, vault_root=root)
    assert (report.status, report.usable, report.trusted) == ("stale", True, False)
    assert report.codes == ["source_changed"]
    check = check_sources(manifest, vault_root=root)
    assert check.state == "stale" and [i.code for i in check.issues] == ["source_changed"]
    assert check.to_dict()["issues"][0]["path"] == "$.source_receipt"
    before = snapshot_tree(root)
    result = cli(SCRIPT, "validate", path, "--vault-root", root)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "manifest_stale"
    assert result.json["report"]["status"] == "stale"
    assert "--force" in result.json["hint"]
    promoted = cli(SCRIPT, "promote", path, "--vault-root", root)
    assert promoted.returncode == 2
    assert promoted.json["error"]["code"] == "manifest_stale"
    assert "source_changed" in promoted.json["error"]["message"]
    assert snapshot_tree(root) == before  # no slides/ created, nothing changed


def test_a_removed_recording_and_a_replaced_pdf_are_stale(
    trusted: tuple[Path, Path, dict[str, Any]],
) -> None:
    root, path, manifest = trusted
    region_pdf = Path(manifest["artifacts"][0]["path"])
    context_pdf = Path(manifest["artifacts"][1]["path"])
    region_pdf.write_bytes(context_pdf.read_bytes())  # a real PDF, other bytes
    Path(manifest["source_video_path"]).unlink()
    check = check_sources(manifest, vault_root=root)
    assert [(i.code, i.path) for i in check.issues] == [
        ("source_missing", "$.source_receipt"),
        ("artifact_changed", "$.artifacts[0]"),
    ]
    report = read_manifest(path, vault_root=root)
    assert report.status == "stale" and not report.trusted
    assert report.codes == ["artifact_changed", "source_missing"]


def test_check_sources_of_documents_it_cannot_check(tmp_path: Path) -> None:
    assert check_sources({"schema_version": 3}, vault_root=tmp_path).state == "unbound"
    escaping = {
        "schema_version": 4,
        "source_receipt": {"vault_path": "../outside.mp4", "sha256": "0" * 64, "size_bytes": 1},
        "artifacts": [],
    }
    check = check_sources(escaping, vault_root=tmp_path)
    assert check.state == "invalid" and check.issues[0].code == "source_receipt_invalid"
    assert check_sources([], vault_root=tmp_path).state == "invalid"
    assert json.loads(json.dumps(check.to_dict()))["state"] == "invalid"
