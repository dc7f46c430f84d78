"""A killed extract's intermediate frames are removed by the next run (issue 18)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from rvault_testkit.video_extraction.synthetic import TalkSpec, distinct_slides, timeline


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_frames_of_a_dead_run_are_removed_and_a_live_runs_are_kept(
    cli: Callable[..., Any], talk_vault: Callable[..., Any]
) -> None:
    vault = talk_vault(TalkSpec(segments=timeline(distinct_slides(2))))
    dead = vault.outdir / f".{vault.video_id}.frames-{_dead_pid()}-abc123"
    dead.mkdir(parents=True)
    (dead / "sample-000001.jpg").write_bytes(b"jpeg")
    live = vault.outdir / f".{vault.video_id}.frames-{os.getpid()}-def456"
    live.mkdir()
    (live / "sample-000001.jpg").write_bytes(b"jpeg")
    foreign = vault.outdir / f".{vault.video_id}.frames-{_dead_pid()}-keep"
    foreign.mkdir()
    (foreign / "notes.txt").write_bytes(b"not a frame")  # not a name extract writes
    result = cli(
        "rvault-video",
        "extract",
        vault.video,
        vault.outdir,
        vault.video_id,
        "--vault-root",
        vault.root,
    )
    assert result.returncode == 0, result.stdout
    assert not dead.exists()
    assert (live / "sample-000001.jpg").read_bytes() == b"jpeg"
    assert (foreign / "notes.txt").read_bytes() == b"not a frame"
