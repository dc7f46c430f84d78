"""One ``capture-identity`` run: read the database, ask once per video, write the capture.

The database is read through the owner read and never written. The capture
file is installed atomically through the contracts writer, bound to what the
run found at that path when it started (so a capture written meanwhile by
someone else is refused, not overwritten). The report is what was written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.cli import Refusal, progress
from rvault_contracts.schemas import schema_issues
from rvault_contracts.writer import install, read_snapshot

from rvault_tracking_db.identity.capture import (
    SCHEMA_VERSION,
    capture,
    replay_extractor,
    youtube_extractor,
)
from rvault_tracking_db.reader import read_database

ARTIFACT = "db-identity-capture"


@dataclass(frozen=True)
class CaptureRequest:
    database: str
    out: str
    captured_at: str
    replay: str | None = None  # a directory of recorded <video_id>.info.json


def run_capture(request: CaptureRequest) -> dict[str, Any]:
    read = read_database(request.database)
    out = Path(request.out)
    before = read_snapshot(out)
    extract = replay_extractor(Path(request.replay)) if request.replay else youtube_extractor()
    progress(f"capture-identity: asking {'recorded metadata' if request.replay else 'YouTube'}")
    entries = capture(read.database or {}, extract, request.captured_at)
    document = {
        "captured_at": request.captured_at,
        "database_sha256": read.sha256,
        "entries": entries,
        "schema_version": SCHEMA_VERSION,
    }
    issues = schema_issues(ARTIFACT, SCHEMA_VERSION, document)
    if issues:  # a yt-dlp answer outside the contract never reaches the file
        raise Refusal(
            "capture_invalid",
            f"yt-dlp's answer does not fit the capture contract: {issues[0].message}",
            issues[0].path,
            hint="check the recorded info documents (--replay) or the installed yt-dlp",
        )
    written = install(out, artifact_bytes(document), expected=before)
    return {
        "captured": sum(1 for e in entries if e["proposal"] is not None),
        "database_sha256": read.sha256,
        "failed": sum(1 for e in entries if e["error"] is not None),
        "ok": True,
        "out": str(out),
        "output_sha256": written.output_sha256,
        "videos": len(entries),
    }
