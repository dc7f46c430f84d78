"""Shared fixtures: a vault with a generated talk video in slides-rebuild/{id}/, and a
vault holding one finished verified manual extraction (``extracted``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)
from rvault_video_extraction.api import validate_manifest
from rvault_video_extraction.extract import ExtractRequest, extract

VIDEO_ID = "AbCdEfGhI_1"


@dataclass(frozen=True)
class TalkVault:
    root: Path
    outdir: Path
    video: Path
    spec: TalkSpec
    video_id: str = VIDEO_ID


@pytest.fixture
def talk_vault(tmp_path: Path) -> Callable[[TalkSpec], TalkVault]:
    """Render ``spec`` to {vault}/slides-rebuild/{id}/{id}.mp4 (OpenCV mp4v)."""

    def make(spec: TalkSpec) -> TalkVault:
        root = tmp_path / "vault"
        outdir = root / "slides-rebuild" / VIDEO_ID
        outdir.mkdir(parents=True, exist_ok=True)
        video = outdir / f"{VIDEO_ID}.mp4"
        write_mp4v(spec, video)
        return TalkVault(root=root, outdir=outdir, video=video, spec=spec)

    return make


@pytest.fixture
def extracted(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A vault with one verified manual extraction: (vault root, its trusted manifest).

    ``artifacts[0]`` is the slide_region PDF, ``artifacts[1]`` the full_frame_context PDF.
    """
    root = tmp_path / "vault"
    outdir = root / "slides-rebuild" / VIDEO_ID
    outdir.mkdir(parents=True)
    video = outdir / f"{VIDEO_ID}.mp4"
    write_mp4v(TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3))), video)
    request = ExtractRequest(
        video, outdir, VIDEO_ID, fps=2.0, region=[0.03, 0.12, 0.66, 0.88], region_verified=True
    )
    manifest = extract(request)
    assert validate_manifest(manifest, vault_root=root).trusted
    return root, manifest
