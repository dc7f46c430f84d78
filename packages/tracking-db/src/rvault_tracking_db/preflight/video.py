"""Video provenance: is a talk's video extraction still about the bytes it describes?

Asked of the video owner's reader (``rvault_video_extraction.api.read_manifest``:
schema, the source receipt re-checked against the recording and every PDF
against its recorded digest). A talk whose slides come from its video
(``slide_source: video_extracted``) and is completed needs a current
manifest; any manifest present that no longer matches its recording
(``stale``) or fails its contract (``invalid``) is a fault for a completed
talk and a warning for one still to be processed. A legacy manifest (no
source receipt) is archival, a warning: only re-extraction can bind it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_tracking_db.identity.recording import catalog_video_id
from rvault_tracking_db.preflight.findings import Findings, TalkRef

PROVENANCE_MISSING = "video_extraction_provenance_missing"
PROVENANCE_INVALID = "video_extraction_provenance_invalid"
LINEAGE_MISMATCH = "video_extraction_source_lineage_mismatch"
RECEIPT_MISSING = "video_extraction_source_receipt_missing"
READER_UNAVAILABLE = "video_reader_unavailable"
_BY_STATUS = {"stale": LINEAGE_MISMATCH, "invalid": PROVENANCE_INVALID}


def video_reader() -> Any | None:
    try:
        from rvault_video_extraction import api
    except ModuleNotFoundError:
        return None
    return api


def check_video(
    ref: TalkRef,
    talk: Mapping[str, Any],
    vault_root: Path,
    completed: bool,
    findings: Findings,
    api: Any | None,
) -> None:
    video = catalog_video_id(talk)
    extracted = talk.get("slide_source") == "video_extracted"
    if video is None or (api is None and not extracted):
        return
    path = ref.path("slide_source")
    if api is None:
        findings.warn(
            READER_UNAVAILABLE,
            path,
            "rvault-video-extraction is not installed: provenance unchecked",
            ref,
        )
        return
    relative = api.manifest_path(video)
    if not (vault_root / relative).is_file():
        if extracted:
            _report(
                findings,
                completed,
                PROVENANCE_MISSING,
                path,
                f"slides are video-extracted but {relative} is absent",
                ref,
                relative,
            )
        return
    report = api.read_manifest(
        vault_root / relative, vault_root=vault_root, expected_video_id=video
    )
    if report.status in _BY_STATUS:
        _report(
            findings,
            completed,
            _BY_STATUS[report.status],
            path,
            f"the video extraction manifest is {report.status} ({', '.join(report.codes)})",
            ref,
            relative,
            report.codes,
        )
    elif report.status != "current":
        findings.warn(
            RECEIPT_MISSING,
            path,
            f"the video extraction manifest is {report.status}: re-extract to bind it",
            ref,
            actual={"manifest": relative, "status": report.status},
        )


def _report(
    findings: Findings,
    completed: bool,
    code: str,
    path: str,
    message: str,
    ref: TalkRef,
    manifest: str,
    codes: list[str] | None = None,
) -> None:
    values = {
        "expected": "a current manifest of these bytes",
        "actual": {"manifest": manifest, "codes": codes or []},
    }
    if completed:
        findings.block(code, path, message, ref, **values)
    else:
        findings.warn(code, path, message, ref, **values)
