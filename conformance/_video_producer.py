"""Real video-extraction output for the video-manifest conformance tests (not a test module).

Generates a three-slide side-by-side talk video and runs the installed
``rvault-video extract`` on it inside a vault, the way a batch does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rvault_testkit.plugin import run_cli
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)

VIDEO_ID = "AbCdEfGhI_1"


def extract(tmp_path: Path, *region: str) -> tuple[Path, dict[str, Any]]:
    """(vault root, manifest) of one extraction; ``region`` adds e.g. ``--region ...``."""
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
