"""``rvault-video download`` / ``batch-download`` offline, through real yt-dlp.

A recorded info document (the shape ``yt-dlp -J`` prints) lists formats
whose URLs are local files generated here; yt-dlp's own format selection,
``file://`` download (its ``enable_file_urls`` switch) and FFmpeg merge run
unchanged. The spec's selector must pick the 720p mp4 video plus the m4a
audio, never the 1080p stream or a webm.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from rvault_video_extraction.downloader import FORMAT

SCRIPT = "rvault-video"
VIDEO_ID = "AbCdEfGhI_1"


def _video(path: Path, width: int, height: int) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (width, height))
    for index in range(10):
        writer.write(np.full((height, width, 3), index * 20, np.uint8))
    writer.release()


@pytest.fixture
def recorded(tmp_path: Path) -> Callable[[str], Path]:
    media = tmp_path / "media"
    media.mkdir()
    _video(media / "v1080.mp4", 96, 54)
    _video(media / "v720.mp4", 64, 36)
    _video(media / "v360.mp4", 32, 18)
    subprocess.run(
        [
            "ffmpeg",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=1",
            "-c:a",
            "aac",
            str(media / "a.m4a"),
        ],
        check=True,
    )

    def write(youtube_id: str) -> Path:
        formats = [
            {
                "format_id": "137",
                "url": (media / "v1080.mp4").as_uri(),
                "ext": "mp4",
                "vcodec": "avc1",
                "acodec": "none",
                "width": 1920,
                "height": 1080,
            },
            {
                "format_id": "247",
                "url": (media / "v720.mp4").as_uri(),
                "ext": "webm",
                "vcodec": "vp9",
                "acodec": "none",
                "width": 1280,
                "height": 720,
            },
            {
                "format_id": "136",
                "url": (media / "v720.mp4").as_uri(),
                "ext": "mp4",
                "vcodec": "avc1",
                "acodec": "none",
                "width": 1280,
                "height": 720,
            },
            {
                "format_id": "18",
                "url": (media / "v360.mp4").as_uri(),
                "ext": "mp4",
                "vcodec": "avc1",
                "acodec": "mp4a.40.2",
                "width": 640,
                "height": 360,
            },
            {
                "format_id": "140",
                "url": (media / "a.m4a").as_uri(),
                "ext": "m4a",
                "vcodec": "none",
                "acodec": "mp4a.40.2",
            },
        ]
        info = {
            "id": youtube_id,
            "title": "A recorded talk",
            "extractor": "youtube",
            "extractor_key": "Youtube",
            "formats": formats,
        }
        path = tmp_path / f"{youtube_id}.info.json"
        path.write_text(json.dumps(info))
        return path

    return write


def download(cli: Callable[..., Any], vault: Path, info: Path, **options: Any) -> Any:
    """``download VIDEO_ID VAULT --load-info-json INFO --enable-file-urls``."""
    return cli(
        SCRIPT,
        "download",
        VIDEO_ID,
        vault,
        "--load-info-json",
        info,
        "--enable-file-urls",
        **options,
    )


def _streams(path: Path) -> list[str]:
    probe = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-show_entries",
            "stream=codec_type,width,height",
            "-of",
            "compact",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(probe.stdout.split())


def test_format_selector_is_the_spec_string() -> None:
    assert (
        FORMAT == "bestvideo[height<=720][ext=mp4]+bestaudio[ext=m4a]"
        "/best[height<=720][ext=mp4]/best[height<=720]"
    )


def test_download_selects_720p_mp4_plus_m4a(
    cli: Callable[..., Any], recorded: Callable[[str], Path], tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    info = recorded(VIDEO_ID)
    result = download(cli, vault, info)
    assert result.returncode == 0, result.stdout + result.stderr
    target = vault / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.mp4"
    assert result.json == {
        "error": None,
        "ok": True,
        "path": str(target.resolve()),
        "size": target.stat().st_size,
        "status": "downloaded",
        "youtube_id": VIDEO_ID,
    }
    assert _streams(target) == [
        "stream|codec_type=audio",
        "stream|codec_type=video|width=64|height=36",
    ]
    assert sorted(p.name for p in target.parent.iterdir()) == [f"{VIDEO_ID}.mp4"]
    assert "136+140" in result.stderr
    again = download(cli, vault, info)
    assert again.returncode == 0 and again.json["status"] == "already_present"


def test_file_urls_stay_blocked_without_the_switch(
    cli: Callable[..., Any],
    recorded: Callable[[str], Path],
    tmp_path: Path,
    snapshot_tree: Callable[..., Any],
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    info = recorded(VIDEO_ID)
    before = snapshot_tree(vault)
    result = cli(SCRIPT, "download", VIDEO_ID, vault, "--load-info-json", info)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "download_failed"
    assert not (vault / "slides-rebuild" / VIDEO_ID / f"{VIDEO_ID}.mp4").exists()
    # No slides-rebuild/{id}/ directory is left behind by the refused download.
    assert snapshot_tree(vault) == before


def test_unusable_info_documents_are_refused_and_change_nothing(
    cli: Callable[..., Any], tmp_path: Path, snapshot_tree: Callable[..., Any]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    shapeless = tmp_path / "shapeless.info.json"
    shapeless.write_text(json.dumps({"id": VIDEO_ID}))
    directory = tmp_path / "dir.info.json"
    directory.mkdir()
    fifo = tmp_path / "fifo.info.json"
    os.mkfifo(fifo)
    before = snapshot_tree(vault)
    cases = {
        shapeless: "info_json_invalid",
        fifo: "info_json_not_regular_file",
        Path("/dev/zero"): "info_json_not_regular_file",
        directory: "info_json_unreadable",
    }
    for info, code in cases.items():
        result = download(cli, vault, info, timeout=60)
        assert result.returncode == 2, (info, result.stdout)
        assert result.json["error"]["code"] == code, (info, result.json)
    assert snapshot_tree(vault) == before


def test_slides_rebuild_that_is_a_file_is_refused(
    cli: Callable[..., Any],
    recorded: Callable[[str], Path],
    tmp_path: Path,
    snapshot_tree: Callable[..., Any],
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "slides-rebuild").write_bytes(b"not a directory")
    before = snapshot_tree(vault)
    result = download(cli, vault, recorded(VIDEO_ID))
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "target_dir_unwritable"
    assert snapshot_tree(vault) == before


def test_download_refusals(
    cli: Callable[..., Any], recorded: Callable[[str], Path], tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    (vault / "slides-rebuild").mkdir(parents=True)
    bad = cli(SCRIPT, "download", "not-an-id", vault)
    assert bad.returncode == 2 and bad.json["error"]["code"] == "invalid_youtube_id"
    mismatch = cli(SCRIPT, "download", "ZZZZZZZZZZZ", vault, "--load-info-json", recorded(VIDEO_ID))
    assert mismatch.returncode == 2 and mismatch.json["error"]["code"] == "info_json_id_mismatch"
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "slides-rebuild" / VIDEO_ID).symlink_to(outside, target_is_directory=True)
    linked = download(cli, vault, recorded(VIDEO_ID))
    assert linked.returncode == 2 and linked.json["error"]["code"] == "symlink_refused"
    assert list(outside.iterdir()) == []
    missing = cli(SCRIPT, "download", VIDEO_ID, tmp_path / "no-vault")
    assert missing.returncode == 2 and missing.json["error"]["code"] == "vault_root_missing"


def test_batch_download(
    cli: Callable[..., Any], recorded: Callable[[str], Path], tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    second = "ZyXwVuTsR_2"
    recorded(VIDEO_ID)
    recorded(second)
    ok = cli(
        SCRIPT,
        "batch-download",
        vault,
        VIDEO_ID,
        second,
        "--info-json-dir",
        tmp_path,
        "--enable-file-urls",
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert [r["status"] for r in ok.json["results"]] == ["downloaded", "downloaded"]
    for youtube_id in (VIDEO_ID, second):
        assert (vault / "slides-rebuild" / youtube_id / f"{youtube_id}.mp4").is_file()
    partial = cli(SCRIPT, "batch-download", vault, VIDEO_ID, "bad id", "--info-json-dir", tmp_path)
    assert partial.returncode == 2
    assert partial.json["error"]["code"] == "batch_incomplete"
    assert [r["status"] for r in partial.json["results"]] == ["already_present", "failed"]
    assert partial.json["results"][1]["error"]["code"] == "invalid_youtube_id"


def test_non_utf8_vault_root_is_refused(
    cli: Callable[..., Any],
    recorded: Callable[[str], Path],
    tmp_path: Path,
    snapshot_tree: Callable[..., Any],
) -> None:
    vault = tmp_path / os.fsdecode(b"vault-\xff")
    vault.mkdir()
    before = snapshot_tree(vault)
    result = download(cli, vault, recorded(VIDEO_ID))
    assert result.returncode == 2, result.stdout
    assert result.json["error"]["code"] == "argument_not_utf8"
    assert snapshot_tree(vault) == before
