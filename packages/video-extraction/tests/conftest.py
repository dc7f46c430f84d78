"""Shared fixtures: a vault with a generated talk video in slides-rebuild/{id}/."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rvault_video_extraction.synthetic import TalkSpec, write_mp4v

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
