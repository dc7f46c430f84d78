"""Binding one extraction to the exact bytes it decoded (the v4 ``source_receipt``).

Before decoding, the recording is hashed through one descriptor and its
header probed; after decoding, its generation must be the one hashed (else
``input_changed``: the pages could come from other bytes than the digest);
then the receipt sets what the container declares beside how far the run
actually got, and a decode that stopped short is refused unless the caller
asked to keep it as an untrusted candidate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.sampling import SampledVideo
from rvault_video_extraction.source_probe import probe_stream
from rvault_video_extraction.source_receipt import (
    FileDigest,
    decode_complete,
    digest_file,
    generation_of,
)

INCOMPLETE_HINT = (
    "re-download the recording (rvault-video download) or repair it (e.g. ffmpeg -i IN -c copy "
    "OUT.mp4 keeps what is decodable, with its real duration) and extract again; "
    "--allow-incomplete keeps these pages as an untrusted candidate"
)


@dataclass(frozen=True)
class SourceFacts:
    """What is known of the recording before it is decoded."""

    vault_path: str
    digest: FileDigest
    probe: dict[str, Any]


def read_source(video: Path, vault_path: str) -> SourceFacts:
    """Hash and probe the recording (``video_unreadable`` when its bytes cannot be read)."""
    try:
        digest = digest_file(video)
    except OSError as exc:
        raise VideoExtractionError(
            "video_unreadable", f"cannot read the video: {exc.strerror or exc}", str(video)
        ) from None
    return SourceFacts(vault_path, digest, probe_stream(video))


def require_unchanged(video: Path, facts: SourceFacts) -> None:
    """Refuse when the recording was replaced or written while it was decoded."""
    try:
        now = generation_of(os.lstat(video))
    except OSError:
        now = None
    if now != facts.digest.generation:
        raise VideoExtractionError(
            "input_changed",
            "the video changed while it was being extracted; nothing was written",
            str(video),
            hint="rerun extract when nothing writes the recording",
        )


def source_receipt(facts: SourceFacts, sampled: SampledVideo, fps_used: float) -> dict[str, Any]:
    """The ``source_receipt`` object of manifest v4 (``decode_complete`` computed, not set)."""
    first, last = sampled.decoded_span_seconds()
    receipt: dict[str, Any] = {
        "vault_path": facts.vault_path,
        "sha256": facts.digest.sha256,
        "size_bytes": facts.digest.size,
        **facts.probe,
        "demuxed_end_seconds": round(sampled.demuxed_end_seconds, 6),
        "decoded_span_seconds": {"first": round(first, 6), "last": round(last, 6)},
    }
    receipt["decode_complete"] = decode_complete(receipt, fps_used)
    return receipt


def require_complete(receipt: dict[str, Any], allow_incomplete: bool, video: Path) -> None:
    """Refuse a decode that stopped short of the declared duration (``video_decode_incomplete``)."""
    if receipt["decode_complete"] or allow_incomplete:
        return
    duration = receipt["container_duration_seconds"]
    declared = "no duration" if duration is None else f"{duration:g} s"
    raise VideoExtractionError(
        "video_decode_incomplete",
        f"the recording declares {declared} but its packets end at "
        f"{receipt['demuxed_end_seconds']:g} s and the last decoded frame is at "
        f"{receipt['decoded_span_seconds']['last']:g} s: the file is truncated or damaged",
        str(video),
        hint=INCOMPLETE_HINT,
    )
