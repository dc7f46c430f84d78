"""The source receipt of manifest v4: which bytes the slides came from (light: stdlib only).

A manifest that names its recording only by path stays "current, trusted"
when the recording is replaced, truncated or overwritten with garbage. v4
binds the evidence to bytes: the extractor records the recording's SHA-256
and size (hashed through one no-follow descriptor whose generation must not
change while the run decodes it), the container's duration, how far the
demuxer and the decoder actually got, and the stream facts as reported, and
every PDF's SHA-256 and size. A reader re-checks them: a cheap size
comparison first (a different size is stale without reading a byte), then
the SHA-256.

Completeness is a rule on recorded numbers, not a flag anyone may set: a
decode whose packets stop short of the container's duration (a file cut
after its index, a damaged tail) or whose last decoded frame is further from
the end than sampling explains is incomplete, and an incomplete manifest is
never trusted (:func:`decode_complete`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rvault_video_extraction.errors import VideoExtractionError

CHUNK = 1024 * 1024
# When the duration is the container's (no per-stream duration), audio may
# outlast the video: the demuxer's end may fall short of it by this much.
CONTAINER_SLACK_SECONDS = 1.0
CONTAINER_SLACK_FRACTION = 0.01


@dataclass(frozen=True)
class FileDigest:
    """SHA-256 and size of one read, and the generation the read was bound to."""

    sha256: str
    size: int
    generation: tuple[int, int, int, int, int]


def generation_of(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """(device, inode, size, mtime, ctime): any write or replacement changes it."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def digest_file(path: Path) -> FileDigest:
    """Hash a regular file through one no-follow descriptor, generation-checked.

    Raises ``OSError`` when the file cannot be opened or read, and
    ``VideoExtractionError("input_changed")`` when it changed during the read.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise OSError(0, "not a regular file", str(path))
        hasher = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, CHUNK):
            hasher.update(chunk)
            size += len(chunk)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if generation_of(before) != generation_of(after) or size != after.st_size:
        raise VideoExtractionError(
            "input_changed",
            "the video changed while it was being hashed; rerun when nothing writes it",
            str(path),
        )
    return FileDigest(hasher.hexdigest(), size, generation_of(after))


def decode_complete(receipt: Mapping[str, Any], fps_used: float) -> bool:
    """Did the run read the recording to the end its container declares?

    Two conditions. The demuxer's end (end of the last packet) reaches the
    duration within two frames (a file cut after its index loses packets,
    not its declared duration); with only a container duration, which may
    be the audio's, within max(1 s, 1 %). And the last decoded frame that
    served a sample lies within one half sampling interval plus five frames
    (the sampling step and the B-frame lag) of that end, so a decoder that
    stopped producing frames before the end is caught too. No duration: the
    decode cannot be shown complete.
    """
    duration = receipt.get("container_duration_seconds")
    stream = receipt.get("video_stream")
    span = receipt.get("decoded_span_seconds")
    end = receipt.get("demuxed_end_seconds")
    if not isinstance(duration, int | float) or not isinstance(end, int | float):
        return False
    if not isinstance(stream, Mapping) or not isinstance(span, Mapping):
        return False
    fps = stream.get("fps")
    last = span.get("last")
    if not isinstance(fps, int | float) or fps <= 0 or not isinstance(last, int | float):
        return False
    frame = 1.0 / fps
    if receipt.get("duration_source") == "video_stream":
        slack = 2 * frame + 0.05
    else:
        slack = max(CONTAINER_SLACK_SECONDS, CONTAINER_SLACK_FRACTION * duration)
    if end < duration - slack:
        return False
    return last >= end - (0.5 / fps_used + 5 * frame + 0.05)


def vault_relative(path: Path, storage_root: Path) -> str:
    """The POSIX vault-relative locator of ``path`` (below the storage root)."""
    return PurePosixPath(*path.relative_to(storage_root).parts).as_posix()
