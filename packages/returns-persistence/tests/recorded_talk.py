"""A speaker's own talk built through the owners' console scripts, up to an active claim.

The vault is made the way a person makes it (the README's pipeline, every
path typed relative to the directory above the vault, every writer a dry run
then the ``next_command`` it printed):

- the recording: real espeak-ng speech, either alone (an audio-only WAV, as
  a phone or a podcast feed gives) or muxed by ffmpeg under a talk filmed by
  OpenCV (slides beside a moving speaker: the testkit's synthetic talk);
- ``rvault-db add-talk --media``: the recording attached as local media;
- ``rvault-transcript vtt-cleanup --media``: captions bound to the recording's
  bytes, registered with ``register-transcript --fetch-result``;
- for a filmed talk, ``rvault-video extract`` reads the recording in place with
  a verified slide region (a trusted manifest), ``promote`` writes
  ``slides/{stem}.pdf`` and ``register-slides`` records it;
- ``queue normalize`` and ``queue claim`` under the shipped catalog's fingerprint.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rvault_contracts.canonical import artifact_bytes
from rvault_testkit.plugin import CliResult, run_cli, run_cli_applied
from rvault_testkit.video_extraction.synthetic import (
    TalkSpec,
    distinct_slides,
    timeline,
    write_mp4v,
)

DB = "vault/tracking-database.json"
WORDS = (
    "today I will show you three slides about one idea and then I will tell you "
    "why the idea matters for the people who build software"
)
CLAIMED_AT = "2026-12-01T12:00:00+00:00"
REGION = "0.03,0.12,0.66,0.88"  # the testkit's side_by_side slide box, confirmed by a person


@dataclass(frozen=True)
class RecordedTalk:
    home: Path  # the directory above the vault: every command runs here
    filename: str
    media: str  # vault-relative path of the attached recording
    slide_pages: int  # distinct slides the video owner recovered (0: none)

    @property
    def vault(self) -> Path:
        return self.home / "vault"


def ok(result: CliResult) -> dict:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.json


def speech(path: Path) -> Path:
    """Real synthesized speech (espeak-ng writes a 22.05 kHz mono WAV)."""
    assert shutil.which("espeak-ng"), "espeak-ng is required (tools/bootstrap.sh installs it)"
    subprocess.run(["espeak-ng", "-w", str(path), WORDS], check=True, capture_output=True)
    return path


def filmed(path: Path, voice: Path) -> Path:
    """Three slides filmed beside a speaker (OpenCV mp4v), the speech muxed in by ffmpeg."""
    silent = write_mp4v(
        TalkSpec(layout="side_by_side", segments=timeline(distinct_slides(3))),
        path.with_suffix(".silent.mp4"),
    )
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-i", str(silent), "-i", str(voice),
         "-c:v", "copy", "-c:a", "aac", str(path)],
        check=True,
    )  # fmt: skip
    silent.unlink()
    return path


def captions(path: Path) -> Path:
    """WebVTT cues of the spoken words, two seconds each, inside the recording's length."""
    words = WORDS.split()
    cues = [" ".join(words[i : i + 6]) for i in range(0, len(words), 6)]
    body = "".join(
        f"00:00:{2 * n:02d}.000 --> 00:00:{2 * n + 2:02d}.000\n{text}\n\n"
        for n, text in enumerate(cues)
    )
    path.write_text("WEBVTT\nLanguage: en\n\n" + body, encoding="utf-8")
    return path


def probe_seconds(path: Path) -> str:
    done = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
         str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _recover_slides(home: Path, media: str, stem: str, filename: str) -> int:
    outdir = f"vault/slides-rebuild/{stem}"
    manifest = ok(run_cli(
        "rvault-video", "extract", f"vault/{media}", outdir, stem, "--vault-root", "vault",
        "--fps", "2", "--region", REGION, "--region-verified", cwd=home,
    ))  # fmt: skip
    path = f"{outdir}/{stem}.video-extraction.json"
    promoted = ok(run_cli("rvault-video", "promote", path, "--vault-root", "vault", cwd=home))
    ok(run_cli_applied("rvault-db", "register-slides", DB,
                       f"vault/{promoted['slides_local_path']}", "--talk", filename,
                       cwd=home))  # fmt: skip
    return int(manifest["unique_frame_count"])


def build_recorded_talk(home: Path, *, video: bool) -> RecordedTalk:
    """The talk claimed and ready to scaffold; ``video``: filmed (MP4) or audio-only (WAV)."""
    for folder in ("vault/transcripts", "vault/media", "site/_talks", "worker"):
        (home / folder).mkdir(parents=True)
    stem = "my-stage-talk" if video else "my-podcast-talk"
    voice = speech(home / "worker" / "voice.wav")
    media = f"media/{stem}.mp4" if video else f"media/{stem}.wav"
    if video:
        filmed(home / "vault" / media, voice)
    else:
        shutil.copyfile(voice, home / "vault" / media)
    filename = f"2024-06-01-{stem}.md"
    ok(run_cli("rvault-db", "init", "vault", "--shownotes-source", "site", "--apply",
               "--expected-sha256", "missing", cwd=home))  # fmt: skip
    ok(run_cli_applied("rvault-db", "add-talk", DB, "--title", "My Own Talk", "--conference",
                       "Local Meetup", "--date", "2024-06-01", "--filename", filename,
                       "--delivery-language", "en", "--media", f"vault/{media}",
                       cwd=home))  # fmt: skip
    vtt = captions(home / "vault" / "transcripts" / f"{stem}.en.vtt")
    fetched = ok(run_cli(
        "rvault-transcript", "vtt-cleanup", f"vault/transcripts/{vtt.name}",
        f"vault/transcripts/{stem}.txt", "--media", f"vault/{media}",
        "--duration-seconds", probe_seconds(home / "vault" / media), "--vault-root", "vault",
        cwd=home,
    ))  # fmt: skip
    (home / "worker" / "fetch.json").write_bytes(artifact_bytes(fetched))
    ok(run_cli_applied("rvault-db", "register-transcript", DB, "worker/fetch.json",
                       "--fetch-result", "--talk", filename, cwd=home))  # fmt: skip
    pages = _recover_slides(home, media, stem, filename) if video else 0
    if ok(run_cli("rvault-db", "queue", DB, "normalize", cwd=home)).get("next_command"):
        ok(run_cli_applied("rvault-db", "queue", DB, "normalize", cwd=home))
    fingerprint = ok(run_cli("rvault-returns", "catalog", cwd=home))["fingerprint"]
    ok(run_cli_applied("rvault-db", "queue", DB, "claim", "--run-id", "own-talk",
                       "--batch-id", "1", "--now", CLAIMED_AT, "--talk", filename,
                       "--catalog-fingerprint", fingerprint, cwd=home))  # fmt: skip
    return RecordedTalk(home, filename, media, pages)
