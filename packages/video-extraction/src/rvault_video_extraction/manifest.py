"""The schema-v4 manifest, built from one extraction.

Trust is computed here in exactly one place: only a verified manual
slide_region of a recording decoded to its end is trusted for authored-slide
analysis and may clear ``review_required``; every other outcome is a
candidate that needs review. v4 adds the ``source_receipt`` (which bytes the
slides came from, see ``source_receipt``) and each PDF's SHA-256 and size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_video_extraction.versioning import PIPELINE_VERSION, SCHEMA_VERSION

SLIDE_REGION_SCOPE = "slide_region"
CONTEXT_SCOPE = "full_frame_context"

REVIEW_AUTO = (
    "automatic slide_region is an unverified crop candidate: inspect it against the context PDF "
    "and source video, then rerun with --region LEFT,TOP,RIGHT,BOTTOM --region-verified --force"
)
REVIEW_MANUAL_UNVERIFIED = (
    "manual slide_region was not marked visually checked: inspect it, "
    "then rerun with --region-verified --force"
)
REVIEW_INCOMPLETE = (
    "the decode stopped short of the recording's declared duration (truncated or damaged "
    "file): these pages are never trusted; re-download or repair the recording and re-extract "
    "with --force"
)
REVIEW_NO_REGION = (
    "no slide region was detected or given: only full-frame context exists, which is never an "
    "authored deck; rerun with a checked --region LEFT,TOP,RIGHT,BOTTOM --region-verified "
    "--force (0,0,1,1 for a true screencast)"
)


@dataclass(frozen=True)
class ManifestInputs:
    video_id: str
    video_path: str
    slide_region_pdf: str | None
    context_pdf: str
    total_samples: int
    retained: list[int]
    hash_threshold: int
    fps: float
    region: list[float] | None
    detected: bool
    applied: bool
    method: str
    verified: bool
    source_receipt: dict[str, Any]
    pdf_digests: dict[str, tuple[str, int]]
    """SHA-256 and size of each PDF's bytes, by its manifest path."""


def timestamp(frame_index: int, fps: float) -> float:
    """frame_index / fps_used, rounded to microseconds (spec: approximate timestamp)."""
    return round(frame_index / fps, 6)


def review_state(
    method: str, verified: bool, applied: bool, complete: bool = True
) -> tuple[bool, str | None]:
    if not complete:
        return True, REVIEW_INCOMPLETE
    if applied and method == "manual" and verified:
        return False, None
    if not applied:
        return True, REVIEW_NO_REGION
    if method == "manual":
        return True, REVIEW_MANUAL_UNVERIFIED
    return True, REVIEW_AUTO


def build_manifest(inputs: ManifestInputs) -> dict[str, Any]:
    review_required, review_reason = review_state(
        inputs.method,
        inputs.verified,
        inputs.applied,
        inputs.source_receipt["decode_complete"],
    )
    pages = len(inputs.retained)
    artifacts: list[dict[str, Any]] = []
    if inputs.slide_region_pdf is not None:
        artifacts.append(
            {
                "path": inputs.slide_region_pdf,
                "artifact_scope": SLIDE_REGION_SCOPE,
                "page_count": pages,
                "sha256": inputs.pdf_digests[inputs.slide_region_pdf][0],
                "size_bytes": inputs.pdf_digests[inputs.slide_region_pdf][1],
                "source_video_id": inputs.video_id,
                "source_video_path": inputs.video_path,
                "crop_method": inputs.method,
                "crop_verified": inputs.verified,
                "trusted_for_authored_slide_analysis": not review_required,
            }
        )
    artifacts.append(
        {
            "path": inputs.context_pdf,
            "artifact_scope": CONTEXT_SCOPE,
            "page_count": pages,
            "sha256": inputs.pdf_digests[inputs.context_pdf][0],
            "size_bytes": inputs.pdf_digests[inputs.context_pdf][1],
            "source_video_id": inputs.video_id,
            "source_video_path": inputs.video_path,
            "crop_method": "none",
            "crop_verified": False,
            "trusted_for_authored_slide_analysis": False,
        }
    )
    return {
        "slide_source": "video_extracted",
        "schema_version": SCHEMA_VERSION,
        "pipeline_version": PIPELINE_VERSION,
        "source_video_id": inputs.video_id,
        "source_video_path": inputs.video_path,
        "source_receipt": inputs.source_receipt,
        "total_frames_extracted": inputs.total_samples,
        "unique_frame_count": pages,
        "authored_slide_count": None,
        "hash_threshold_used": inputs.hash_threshold,
        "slide_region_detected": inputs.detected,
        "slide_region_applied": inputs.applied,
        "slide_region_method": inputs.method,
        "slide_region_verified": inputs.verified,
        "slide_region": inputs.region,
        "fps_used": inputs.fps,
        "retained_frames": [
            {
                "page_number": page,
                "frame_index": index,
                "timestamp_seconds": timestamp(index, inputs.fps),
            }
            for page, index in enumerate(inputs.retained, start=1)
        ],
        "artifacts": artifacts,
        "review_required": review_required,
        "review_reason": review_reason,
    }
