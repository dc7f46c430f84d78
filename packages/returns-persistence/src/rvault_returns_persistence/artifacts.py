"""What the vault actually holds for one talk, and the bounds it proves.

Range receipts are only as good as the artifacts behind them: a line range
past the transcript's last line, a page past the PDF's last page or a time
past the video's duration is a false claim. Coverage completeness (and thus
any absence or applicability outcome) also needs a known final bound. The
paths are the vault's contract paths; symlinks below the vault root are not
followed and count as missing.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_number
from rvault_tracking_db.api import (
    TranscriptOwner,
    check_recording,
    recording_shows_video,
    talk_local_media,
    talk_video_key,
    transcript_owner,
)


def _regular_file(root: Path, relative: str) -> Path | None:
    """``root/relative`` when every component is a real directory/file (no symlink, no escape)."""
    parts = PurePosixPath(relative).parts
    if (
        not parts
        or PurePosixPath(relative).is_absolute()
        or any(p in ("", ".", "..") for p in parts)
    ):
        return None
    current = root
    for index, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except (OSError, ValueError):  # ValueError: an embedded NUL byte in a claimed path
            return None
        last = index == len(parts) - 1
        if stat.S_ISLNK(st.st_mode):
            return None
        if last and not stat.S_ISREG(st.st_mode):
            return None
        if not last and not stat.S_ISDIR(st.st_mode):
            return None
    return current


def transcript_relpath(talk: dict[str, Any]) -> str | None:
    path = talk.get("transcript_path")
    if isinstance(path, str) and path:
        return path
    youtube_id = talk.get("youtube_id")
    return f"transcripts/{youtube_id}.txt" if isinstance(youtube_id, str) and youtube_id else None


def count_lines(data: bytes) -> int:
    """Lines as a reader numbers them: LF-separated, a final unterminated line counts."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def pdf_page_count(path: Path) -> int | None:
    """Page count through the video-extraction owner's bounded PDF probe (None: unreadable).

    Imported lazily: the probe loads pypdf, which most start-ups never need.
    """
    from rvault_video_extraction.api import PdfProbeError, probe_pdf

    try:
        return probe_pdf(str(path)).page_count
    except PdfProbeError:
        return None


@dataclass(frozen=True)
class TalkArtifacts:
    """Bounds proven by the vault for one talk (None: unknown or absent)."""

    transcript_path: str | None
    transcript_lines: int | None
    pdf_path: str | None
    pdf_pages: int | None
    pdf_is_video_extracted: bool
    deck_slides: int | None
    video_duration: float | None
    video_path: str | None  # the downloaded delivery video, when it is in the vault
    transcript_bytes: bytes | None = field(default=None, repr=False, compare=False)


def _pdf_candidates(talk: dict[str, Any], return_path: object) -> list[tuple[str, bool]]:
    """PDF paths to try, each with whether it is video-extracted.

    ``slides/{key}.pdf`` is by contract the promoted video-extracted
    slide_region PDF (the video owner's ``promote`` writes it; the key is the
    YouTube id, or the stem of the talk's own attached recording:
    ``talk_video_key``), so it is never read as an authored PDF, whatever the
    talk's recorded slide_source says: an authored-PDF reading would let a
    sampled video establish absences.
    """
    key = talk_video_key(talk)
    video_pdf = f"slides/{key}.pdf" if key is not None else None
    out: list[tuple[str, bool]] = []
    for candidate in (return_path, talk.get("slides_local_path")):
        if isinstance(candidate, str) and candidate:
            out.append((candidate, candidate == video_pdf))
    drive = talk.get("google_drive_id")
    if isinstance(drive, str) and drive:
        out.append((f"slides/{drive}.pdf", False))
    if video_pdf is not None:
        out.append((video_pdf, True))
    return out


def _stat_key(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=32)
def _cached_readings(
    path: str,
    data: bytes,
    owner: TranscriptOwner,
    _receipt_files: tuple[Any, ...],
) -> tuple[Any, Any]:
    from rvault_transcript import api as transcript_api  # receipts are rare; keep start-up light

    context = transcript_api.OwnerContext(**owner.kwargs())
    return (
        transcript_api.read_timing(path, transcript_bytes=data, owner=context),
        transcript_api.read_quality(path, transcript_bytes=data, owner=context),
    )


def owner_readings(path: Path, data: bytes, talk: dict[str, Any]) -> tuple[Any, Any]:
    """(timing, quality) readings of the transcript owner for these exact transcript bytes.

    The owner context is the one the database owner builds for every reader
    (``transcript_owner``: the YouTube id, an attached recording's digest and
    duration, else the source identity's duration), so a transcript of a local
    recording verifies here exactly as in ``rvault-db status``. Re-running the
    owner's quality policy costs a few hundred milliseconds on a long
    transcript, and validation, persistence and the video bound all ask; the
    readings are memoized on the transcript bytes and the receipt files'
    identities, so a changed receipt is always read again.
    """
    stem = path.with_name(path.stem)
    key = (_stat_key(Path(f"{stem}.segments.json")), _stat_key(Path(f"{stem}.quality.json")))
    return _cached_readings(str(path), data, transcript_owner(talk), key)


def _receipt_duration(root: Path, talk: dict[str, Any], transcript: str) -> float | None:
    """Owner duration from a current, owner-bound transcript receipt (rvault_transcript.api)."""
    stem = transcript[: -len(".txt")]
    if not any(_regular_file(root, stem + s) for s in (".segments.json", ".quality.json")):
        return None
    path = _regular_file(root, transcript)
    if path is None:
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    for reading in owner_readings(path, data, talk):
        if reading.usable and reading.receipt is not None:
            value = reading.receipt.provenance.get("duration_seconds")
            if is_number(value) and value > 0:
                return float(value)
    return None


def _video_duration(root: Path, talk: dict[str, Any], transcript: str | None) -> float | None:
    """Video duration: owner provenance of the transcript receipts, else the source identity."""
    if transcript is not None and transcript.endswith(".txt"):
        duration = _receipt_duration(root, talk, transcript)
        if duration is not None:
            return duration
    identity = talk.get("source_identity")
    if isinstance(identity, dict):
        value = identity.get("duration_seconds")
        if is_number(value) and value > 0:
            return float(value)
    return None


def _video_relpath(root: Path, talk: dict[str, Any]) -> str | None:
    """The talk's video recording in the vault, when it exists.

    ``slides-rebuild/{youtube_id}/{youtube_id}.mp4`` (video-extraction layout),
    else the recording attached with ``rvault-db attach-media`` (its
    ``local_media`` record) when it still has the recorded bytes and has a
    video stream: a talk filmed locally has a delivery video too; a recording
    replaced since it was attached (``check_recording``: size, generation, then
    SHA-256) is not the evidence the transcript was bound to, and an
    audio-only recording (a WAV) shows nothing of the delivery (tracking-db's
    ``recording_shows_video``: the v2 record's ``streams``, a v1 record probed).
    """
    youtube_id = talk.get("youtube_id")
    if isinstance(youtube_id, str) and youtube_id:
        relative = f"slides-rebuild/{youtube_id}/{youtube_id}.mp4"
        if _regular_file(root, relative) is not None:
            return relative
    media = talk_local_media(talk)
    attached = media.get("path") if media is not None else None
    if (
        isinstance(attached, str)
        and _regular_file(root, attached) is not None
        and check_recording(root, media) is None
        and recording_shows_video(root, media)
    ):
        return attached
    return None


def resolve(
    root: Path, talk: dict[str, Any], *, deck_slides: int | None, return_pdf: object = None
) -> TalkArtifacts:
    transcript = transcript_relpath(talk)
    lines = None
    data = None
    if transcript is not None:
        found = _regular_file(root, transcript)
        if found is not None:
            with open(found, "rb") as handle:
                data = handle.read()
            lines = count_lines(data) or None
    pdf_path, pdf_pages, extracted = None, None, False
    for candidate, is_extracted in _pdf_candidates(talk, return_pdf):
        found = _regular_file(root, candidate)
        if found is not None:
            pdf_path, extracted = candidate, is_extracted
            pdf_pages = pdf_page_count(found)
            break
    return TalkArtifacts(
        transcript_path=transcript if lines is not None else None,
        transcript_lines=lines,
        pdf_path=pdf_path,
        pdf_pages=pdf_pages,
        pdf_is_video_extracted=extracted,
        deck_slides=deck_slides if is_int(deck_slides) else None,
        video_duration=_video_duration(root, talk, transcript),
        video_path=_video_relpath(root, talk),
        transcript_bytes=data if lines is not None else None,
    )
