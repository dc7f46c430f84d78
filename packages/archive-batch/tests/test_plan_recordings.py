"""Which recording ``plan`` takes slides from: only one that shows the delivery (issue 24).

The generated archive's talks have a YouTube id and a filmed download at the
contract path. A speaker may also attach a recording of their own with
``rvault-db attach-media``: real espeak-ng speech as a WAV (audio only, as a
phone or a podcast feed gives), or a filmed MP4. The transcript task takes
the attached recording either way (its receipts are bound to those bytes);
the slides task takes it only when it has a video stream (tracking-db's
``recording_shows_video``), else the talk's download, and names the manifest
by the talk's video key (``talk_video_key``: the YouTube id, else the
attached recording's stem).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rvault_testkit.archive_batch.archive import Archive
from rvault_testkit.plugin import run_cli_applied


@pytest.fixture(scope="session")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real spoken sentence (espeak-ng's 22.05 kHz mono WAV): a recording with no video."""
    path = tmp_path_factory.mktemp("speech") / "voice.wav"
    words = "good morning and thank you for coming to this talk about pauses"
    subprocess.run(["espeak-ng", "-w", str(path), words], check=True, capture_output=True)
    return path


def attach(archive: Archive, filename: str, recording: Path) -> None:
    result = run_cli_applied("rvault-db", "attach-media", archive.database, "--talk", filename,
                             recording, cwd=archive.home)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def planned(archive: Archive, batch: Callable) -> dict[str, dict[str, Any]]:
    result = batch("plan", archive.vault)
    assert result.returncode == 0, result.stdout + result.stderr
    return {t["key"]: t for t in result.json["tasks"]}


def test_an_attached_audio_only_recording_is_never_the_slides_source(
    archive: Archive, batch: Callable, speech: Path, snapshot_tree: Callable
) -> None:
    first, second = archive.talks
    for talk in (first, second):
        wav = archive.vault / "media" / f"{talk.video_id}.wav"
        wav.parent.mkdir(exist_ok=True)
        shutil.copyfile(speech, wav)
        attach(archive, talk.filename, wav)
    # the second talk's download is gone: only its audio remains
    (archive.vault / "slides-rebuild" / second.video_id / f"{second.video_id}.mp4").unlink()
    before = snapshot_tree(archive.vault)

    tasks = planned(archive, batch)
    for talk in (first, second):
        transcript = tasks[f"transcript:{talk.filename}"]["args"]
        assert transcript["recording"] == f"media/{talk.video_id}.wav"
        assert transcript["attach"] is False
    slides = tasks[f"slides:{first.filename}"]["args"]
    assert slides == {
        "video_id": first.video_id,
        "recording": f"slides-rebuild/{first.video_id}/{first.video_id}.mp4",
        "outdir": f"slides-rebuild/{first.video_id}",
    }
    assert f"slides:{second.filename}" not in tasks
    assert snapshot_tree(archive.vault) == before


def test_an_attached_filmed_recording_is_the_slides_source(
    archive: Archive, batch: Callable
) -> None:
    talk = archive.talks[0]
    download = archive.vault / "slides-rebuild" / talk.video_id / f"{talk.video_id}.mp4"
    filmed = archive.vault / "media" / "my-own-cut.mp4"
    filmed.parent.mkdir()
    shutil.copyfile(download, filmed)
    attach(archive, talk.filename, filmed)

    slides = planned(archive, batch)[f"slides:{talk.filename}"]["args"]
    # the manifest keeps the talk's YouTube id as its name (every reader looks it up so)
    assert slides == {
        "video_id": talk.video_id,
        "recording": "media/my-own-cut.mp4",
        "outdir": f"slides-rebuild/{talk.video_id}",
    }


def test_a_talk_known_only_by_its_recording_is_keyed_by_its_stem(
    archive: Archive, batch: Callable, speech: Path
) -> None:
    """No YouTube id: a filmed recording's slides are named by its stem; audio gives none."""
    media = archive.vault / "media"
    media.mkdir()
    shutil.copyfile(archive.vault / "slides-rebuild" / archive.talks[0].video_id
                    / f"{archive.talks[0].video_id}.mp4", media / "stage-talk.mp4")  # fmt: skip
    shutil.copyfile(speech, media / "podcast-talk.wav")
    for stem, suffix in (("stage-talk", "mp4"), ("podcast-talk", "wav")):
        added = run_cli_applied(
            "rvault-db", "add-talk", archive.database, "--title", stem, "--conference",
            "Own", "--date", "2025-02-01", "--filename", f"2025-02-01-{stem}.md",
            "--media", media / f"{stem}.{suffix}", cwd=archive.home,
        )  # fmt: skip
        assert added.returncode == 0, added.stdout + added.stderr

    tasks = planned(archive, batch)
    assert tasks["slides:2025-02-01-stage-talk.md"]["args"] == {
        "video_id": "stage-talk",
        "recording": "media/stage-talk.mp4",
        "outdir": "slides-rebuild/stage-talk",
    }
    assert "slides:2025-02-01-podcast-talk.md" not in tasks
    assert tasks["transcript:2025-02-01-podcast-talk.md"]["args"]["recording"] == (
        "media/podcast-talk.wav"
    )
