"""A transcript bound to the talk's own recording verifies in validate and persist.

The captions are imported with ``rvault-transcript vtt-cleanup --media``, so
the quality receipt binds the recording's SHA-256 (no YouTube id exists for
a speaker's own recording). The talk record carries the recording as
``local_media`` (what ``rvault-db attach-media`` writes); returns-persistence
must build the transcript owner context from it, as ``rvault-db status``
does, or the receipt reads as ``owner_context_missing`` and persist refuses
the talk.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from rvault_returns_persistence.artifacts import owner_readings, resolve
from rvault_testkit.plugin import run_cli
from rvault_transcript.probe import probe_local

WORDS = "the speaker opens with a question and answers it with a story about a failed launch"


def _recording(path: Path) -> Path:
    assert shutil.which("espeak-ng"), "espeak-ng is required (tools/bootstrap.sh installs it)"
    subprocess.run(["espeak-ng", "-w", str(path), WORDS], check=True, capture_output=True)
    return path


def _captions(path: Path) -> Path:
    cues = [WORDS[i : i + 40] for i in range(0, len(WORDS), 40)]
    body = "".join(
        f"00:00:{2 * n:02d}.000 --> 00:00:{2 * n + 2:02d}.000\n{text}\n\n"
        for n, text in enumerate(cues)
    )
    path.write_text("WEBVTT\nLanguage: en\n\n" + body, encoding="utf-8")
    return path


def test_a_transcript_of_the_talks_own_recording_verifies(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "transcripts").mkdir(parents=True)
    (vault / "media").mkdir()
    recording = _recording(vault / "media" / "talk.wav")
    with open(recording, "rb") as handle:
        probed = probe_local(handle)
    _captions(vault / "transcripts" / "talk.en.vtt")
    result = run_cli(
        "rvault-transcript", "vtt-cleanup", "vault/transcripts/talk.en.vtt",
        "vault/transcripts/talk.txt", "--media", "vault/media/talk.wav",
        "--duration-seconds", str(probed.duration_seconds), "--vault-root", "vault",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr

    transcript = vault / "transcripts" / "talk.txt"
    data = transcript.read_bytes()
    talk: dict[str, Any] = {"filename": "talk.md", "youtube_id": None}
    _, quality = owner_readings(transcript, data, talk)
    assert quality.code == "owner_context_missing"  # no record of the recording: not trusted

    talk["local_media"] = {
        "schema_version": 1,
        "path": "media/talk.wav",
        "sha256": probed.sha256,
        "size_bytes": recording.stat().st_size,
        "duration_seconds": probed.duration_seconds,
    }
    _, quality = owner_readings(transcript, data, talk)
    assert quality.usable, quality.code

    other = dict(talk, local_media=dict(talk["local_media"], sha256="0" * 64))
    _, mismatched = owner_readings(transcript, data, other)
    assert mismatched.code == "media_mismatch"

    # the attached recording is speech only (a WAV, a v1 record without streams, probed
    # when asked): no delivery video to inspect, though its receipt verified the duration
    talk["transcript_path"] = "transcripts/talk.txt"
    found = resolve(vault, talk, deck_slides=None)
    assert found.video_path is None
    assert found.video_duration == probed.duration_seconds
