"""A talk's recording measured once, from one open descriptor: SHA-256, size, duration, streams.

``attach-media`` records a recording so that every reader can build the
transcript owner context (``media_sha256``, ``duration_seconds``) without
re-deriving it. The facts must describe the same bytes: the file is opened
below the vault root without following a link (the capability resolver's
:func:`~rvault_tracking_db.capabilities.open_under_root`), hashed through
that descriptor, and its container duration is probed by ``ffprobe`` reading
``/dev/fd/N`` of the very same descriptor (a seekable view of the same
inode, so an MP4 whose index sits at the end probes too). A file whose size
or modification time moved while it was measured is refused, never recorded.

``ffprobe``'s ``format.duration`` is libavformat's container duration, the
value the transcript owner's PyAV probe reads (``container.duration``), so a
receipt made by ``rvault-transcript fetch --audio`` binds to what is recorded
here within the owner's one-second tolerance.

The same probe records which streams the file has (db-local-media v2
``streams``): a recording without a video stream (a WAV, a podcast feed)
shows nothing of the delivery, so no reader may offer it as a
``delivery_video`` source. Cover art (a video stream with the
``attached_pic`` disposition, as in an MP3 or M4A) is no video either. A v1
record, measured before the fact was kept, is probed again when a reader
asks (:func:`recording_shows_video`); a recording ffprobe cannot read then
counts as audio only, never as video.

Standard library and the light ``rvault_contracts.errors`` only: the public
api re-exports :func:`check_recording` and :func:`recording_shows_video`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.errors import Refusal

from rvault_tracking_db.capabilities import open_under_root

LOCAL_MEDIA_VERSION = 2  # v2 adds streams; v1 records are still read
PROBE_TIMEOUT_SECONDS = 60
#: the transcript owner's measurement tolerance (rvault_transcript.policy)
DURATION_TOLERANCE_SECONDS = 1.0

# open_under_root's reasons, as the codes a refusal or a status row shows
OPEN_CODES = {
    "missing": "media_missing",
    "symlink": "symlink_refused",
    "symlink_or_not_directory": "symlink_refused",
    "not_regular_file": "not_regular_file",
    "path_escapes_root": "path_escapes_root",
    "path_not_relative": "path_escapes_root",
    "path_not_canonical": "path_not_canonical",
    "path_not_portable": "path_not_canonical",
    "path_empty": "path_not_canonical",
}


class MediaError(Refusal):
    """Why a recording cannot be recorded (a stable code, a message, the reason underneath)."""

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        super().__init__(code, message, **({} if reason is None else {"reason": reason}))
        self.reason = reason


@dataclass(frozen=True)
class Probe:
    """What ffprobe says of one file: container duration and which streams it carries."""

    duration_seconds: float
    video: bool  # a video stream that is not cover art
    audio: bool


@dataclass(frozen=True)
class Recording:
    """What ``talks[].local_media`` v2 stores (``generation``: the measured file's
    inode and modification time, a cache key that lets a reader skip the hash)."""

    path: str
    sha256: str
    size_bytes: int
    probe: Probe
    inode: int
    mtime_ns: int

    @property
    def duration_seconds(self) -> float:
        return self.probe.duration_seconds

    def record(self) -> dict[str, Any]:
        return {
            "schema_version": LOCAL_MEDIA_VERSION,
            "path": self.path,
            "sha256": self.sha256,
            "size_bytes": self.size_bytes,
            "duration_seconds": self.probe.duration_seconds,
            "streams": {"video": self.probe.video, "audio": self.probe.audio},
            "generation": {"inode": self.inode, "mtime_ns": self.mtime_ns},
        }


def _open(vault_root: Path, relative: str) -> int:
    fd, code = open_under_root(vault_root, relative)
    if fd is None:
        raise MediaError(
            OPEN_CODES.get(str(code), "media_unreadable"),
            f"{relative!r} is not a regular file readable below the vault root {vault_root}"
            f" ({code})",
            code,
        )
    return fd


def _hash(fd: int) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def _ffprobe(fd: int) -> Probe:
    executable = shutil.which("ffprobe")
    if executable is None:
        raise MediaError("ffprobe_unavailable", "ffprobe (FFmpeg) is not installed")
    command = [
        executable, "-v", "error", "-show_entries",
        "format=duration:stream=codec_type:stream_disposition=attached_pic",
        "-of", "json", f"/dev/fd/{fd}",
    ]  # fmt: skip
    try:
        done = subprocess.run(
            command, pass_fds=(fd,), capture_output=True, timeout=PROBE_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MediaError("media_unprobeable", f"ffprobe did not finish: {exc}") from None
    try:
        document = json.loads(done.stdout)
        value = document["format"]["duration"]
        seconds = float(value)
        streams = [s for s in document.get("streams", []) if isinstance(s, dict)]
    except (ValueError, KeyError, TypeError, AttributeError):
        message = done.stderr.decode("utf-8", "replace").strip() or "no duration"
        raise MediaError("media_unprobeable", f"ffprobe found no duration: {message}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise MediaError("media_unprobeable", f"ffprobe reports a duration of {value}")
    return Probe(seconds, any(map(_is_video, streams)), any(_kind(s) == "audio" for s in streams))


def _kind(stream: Mapping[str, Any]) -> object:
    return stream.get("codec_type")


def _is_video(stream: Mapping[str, Any]) -> bool:
    """A picture stream that moves: not an MP3's or M4A's attached cover art."""
    disposition = stream.get("disposition")
    cover = isinstance(disposition, Mapping) and disposition.get("attached_pic") == 1
    return _kind(stream) == "video" and not cover


def _generation(fd: int) -> tuple[int, int, int, int]:
    st = os.fstat(fd)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def measure_recording(vault_root: Path, relative: str) -> Recording:
    """Hash and probe ``vault_root/relative`` through one no-follow descriptor."""
    fd = _open(vault_root, relative)
    try:
        before = _generation(fd)
        sha256, size = _hash(fd)
        if size == 0:
            raise MediaError("media_unprobeable", f"{relative} is empty")
        probe = _ffprobe(fd)
        if _generation(fd) != before or size != before[1]:
            raise MediaError(
                "media_changed", f"{relative} changed while it was measured; measure it again"
            )
    finally:
        os.close(fd)
    return Recording(relative, sha256, size, probe, before[0], before[2])


def check_recording(vault_root: Path, record: Mapping[str, Any]) -> str | None:
    """``None`` when the recorded file still has the recorded bytes, else why not.

    The cheap checks first: a different size is ``media_stale`` without
    reading a byte; the same size, inode and modification time as when it
    was measured (``generation``) is the measured file, current without
    reading a byte (a same-size rewrite that also restores the mtime is the
    one change this cannot see); anything else is hashed. ``media_missing``,
    ``symlink_refused``, ``not_regular_file`` and ``path_escapes_root`` say
    the recording is gone or was replaced by something a reader must not follow.
    """
    relative = record.get("path")
    if not isinstance(relative, str):
        return "media_missing"
    try:
        fd = _open(vault_root, relative)
    except MediaError as exc:
        return exc.code
    try:
        st = os.fstat(fd)
        if st.st_size != record.get("size_bytes"):
            return "media_stale"
        if record.get("generation") == {"inode": st.st_ino, "mtime_ns": st.st_mtime_ns}:
            return None  # the very file that was measured, untouched since: no re-hash
        sha256, _ = _hash(fd)
    except OSError:
        return "media_unreadable"
    finally:
        os.close(fd)
    return None if sha256 == record.get("sha256") else "media_stale"


def recording_shows_video(vault_root: Path, record: Mapping[str, Any] | None) -> bool:
    """Whether the attached recording has a video stream, so it may be a ``delivery_video``.

    A v2 record says so (``streams.video``, measured with its bytes). A v1
    record predates the fact: the file at its path is probed now, through the
    same no-follow descriptor as at attach time; a file that is gone, refused
    or unprobeable counts as no video (a source is offered only when proven).
    """
    if record is None:
        return False
    streams = record.get("streams")
    if isinstance(streams, Mapping):
        return streams.get("video") is True
    relative = record.get("path")
    if not isinstance(relative, str):
        return False
    try:
        fd = _open(vault_root, relative)
    except MediaError:
        return False
    try:
        return _ffprobe(fd).video
    except MediaError:
        return False
    finally:
        os.close(fd)


def durations_agree(recorded: float, probed: float) -> bool:
    return abs(recorded - probed) <= DURATION_TOLERANCE_SECONDS
