"""Video-extracted slides: what a processed or partial return may claim.

A processed video-extracted return needs a complete, trusted v3 manifest
whose identity is the claimed talk's YouTube video, and the promoted
``slides/{id}.pdf``. Without a promoted artifact the path must be omitted
and cleared, so an older trusted deck path cannot survive the merge.
"""

from __future__ import annotations

from rvault_contracts.strict_json import json_path as child
from rvault_tracking_db.api import talk_video_key

from rvault_returns_persistence.context import ReturnContext


def check_video_extraction(ctx: ReturnContext) -> None:
    """The manifest, then the slide artifact a processed or partial return may claim."""
    if ctx.ret.get("slide_source") != "video_extracted":
        return
    # The YouTube id, or the stem of the talk's own attached recording (tracking-db's key).
    youtube_id = talk_video_key(ctx.talk)
    expected_path = f"slides/{youtube_id}.pdf" if youtube_id is not None else None
    _check_manifest(ctx, youtube_id)
    verdict = ctx.manifest
    promoted = (
        verdict is not None
        and verdict.trusted
        and verdict.source_video_id == youtube_id
        and ctx.artifacts.pdf_path == expected_path
    )
    if ctx.status == "processed":
        _check_processed(ctx, youtube_id, expected_path, promoted)
    else:
        _check_partial(ctx, expected_path, promoted)


def _manifest_path(ctx: ReturnContext) -> str:
    return child(child(ctx.path, "structured_data"), "video_extraction")


def _check_manifest(ctx: ReturnContext, youtube_id: str | None) -> None:
    """What ``rvault-video validate`` says of the copied manifest, and whose video it is."""
    verdict = ctx.manifest
    m_path = _manifest_path(ctx)
    if verdict is not None and verdict.problems:
        ctx.add(
            "video_manifest_invalid",
            m_path,
            f"`rvault-video validate` refuses this manifest (status {verdict.status}): "
            + "; ".join(verdict.problems[:5]),
        )
    if (
        verdict is not None
        and verdict.source_video_id is not None
        and verdict.source_video_id != youtube_id
    ):
        ctx.add(
            "video_manifest_identity_mismatch",
            child(m_path, "source_video_id"),
            "the manifest's source_video_id must be the claimed talk's youtube_id (or, for a "
            "talk known only by its attached recording, that recording's file stem)",
        )


def _check_processed(
    ctx: ReturnContext, youtube_id: str | None, expected_path: str | None, promoted: bool
) -> None:
    """A processed return needs the complete trusted manifest and its promoted PDF."""
    ret, verdict, m_path = ctx.ret, ctx.manifest, _manifest_path(ctx)
    structured = ret.get("structured_data") if isinstance(ret.get("structured_data"), dict) else {}
    l_path = child(ctx.path, "slides_local_path")
    if "video_extraction" not in structured:
        ctx.add(
            "video_manifest_required",
            m_path,
            "structured_data.video_extraction is missing: processed video_extracted needs "
            "the complete v3 manifest rvault-video wrote for this talk, copied unchanged",
        )
    elif verdict is not None and verdict.valid and not verdict.trusted:
        ctx.add(
            "video_manifest_untrusted",
            m_path,
            f"`rvault-video validate` reports this manifest {verdict.status} but trusted "
            "false: its slide_region is not a verified manual crop with review_required "
            "false; review the crop with rvault-video, or return processed_partial without "
            "static_slides",
        )
    elif (
        verdict is not None
        and verdict.trusted
        and not promoted
        and verdict.source_video_id == youtube_id
    ):
        ctx.add(
            "video_artifact_not_promoted",
            l_path,
            f"processed video_extracted needs the promoted {expected_path} in the vault",
        )
    if "slides_local_path" not in ret:
        ctx.add(
            "slides_local_path_required",
            l_path,
            f"processed video_extracted requires slides_local_path {expected_path}",
        )
    elif ret["slides_local_path"] != expected_path:
        ctx.add("slides_local_path_mismatch", l_path, f"slides_local_path must be {expected_path}")


def _check_partial(ctx: ReturnContext, expected_path: str | None, promoted: bool) -> None:
    """Without a promoted artifact the path is omitted and cleared, so no older one survives."""
    ret = ctx.ret
    l_path = child(ctx.path, "slides_local_path")
    if promoted:
        if "slides_local_path" in ret and ret["slides_local_path"] != expected_path:
            ctx.add(
                "slides_local_path_mismatch", l_path, f"slides_local_path must be {expected_path}"
            )
        return
    if "slides_local_path" in ret:
        ctx.add(
            "slides_local_path_forbidden",
            l_path,
            "without a promoted trusted artifact, omit slides_local_path",
        )
    clear = ret.get("clear_fields")
    if not (isinstance(clear, list) and "slides_local_path" in clear):
        ctx.add(
            "slides_local_path_clear_required",
            child(ctx.path, "clear_fields"),
            "list slides_local_path in clear_fields so an older deck path cannot survive",
        )
