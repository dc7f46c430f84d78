"""Trust decision for a video-extraction manifest carried by a return.

A video-extracted return may claim authored-slide evidence only from a
complete schema-v3 manifest whose slide_region artifact is a verified
manual crop. The manifest's shape is the video-extraction owner's contract:
when that owner has registered its schema (``video-manifest`` v3) it is
applied; the referential rules the specification states are checked here
in any case, so an optimistic flag can never turn a context PDF into a deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rvault_contracts import schemas

from rvault_returns_persistence.issues import is_int, is_number

MANIFEST_ARTIFACTS = ("video-manifest", "video-extraction-manifest")


@dataclass(frozen=True)
class ManifestVerdict:
    problems: tuple[str, ...]  # the manifest is not a valid v3 unit
    trusted: bool  # valid and carrying a verified manual slide_region
    source_video_id: str | None

    @property
    def valid(self) -> bool:
        return not self.problems


def _registered_schema_problems(manifest: Any) -> list[str]:
    registry = schemas.registry()
    for artifact in MANIFEST_ARTIFACTS:
        entry = registry.get(artifact)
        if entry is not None and 3 in entry.versions:
            return [f"{i.path}: {i.message}" for i in schemas.schema_issues(artifact, 3, manifest)]
    return []


def _spec_problems(m: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if m.get("schema_version") != 3 or not is_int(m.get("schema_version")):
        problems.append("schema_version must be 3")
    if not isinstance(m.get("pipeline_version"), str) or not m.get("pipeline_version"):
        problems.append("pipeline_version is required")
    vid = m.get("source_video_id")
    if not isinstance(vid, str) or not vid:
        problems.append("source_video_id is required")
    unique = m.get("unique_frame_count")
    frames = m.get("retained_frames")
    if not is_int(unique) or unique < 0:
        problems.append("unique_frame_count must be a non-negative integer")
    if not isinstance(frames, list) or (is_int(unique) and len(frames) != unique):
        problems.append("retained_frames must list exactly unique_frame_count pages")
    artifacts = m.get("artifacts")
    if not isinstance(artifacts, list) or not artifacts:
        problems.append("artifacts must be a non-empty array")
        return problems
    scopes = [a.get("artifact_scope") for a in artifacts if isinstance(a, dict)]
    if len(scopes) != len(artifacts) or len(set(scopes)) != len(scopes):
        problems.append("artifacts must be objects with distinct artifact_scope")
    for index, art in enumerate(artifacts):
        if not isinstance(art, dict):
            continue
        if art.get("source_video_id") != vid or art.get("source_video_path") != m.get(
            "source_video_path"
        ):
            problems.append(f"artifacts[{index}] identity disagrees with the manifest")
        if is_int(unique) and art.get("page_count") != unique:
            problems.append(f"artifacts[{index}].page_count must equal unique_frame_count")
        scope = art.get("artifact_scope")
        if scope == "full_frame_context" and (
            art.get("crop_method") != "none"
            or art.get("crop_verified") is not False
            or art.get("trusted_for_authored_slide_analysis") is not False
        ):
            problems.append(f"artifacts[{index}] full_frame_context can never be a trusted crop")
        elif (
            scope == "slide_region"
            and art.get("trusted_for_authored_slide_analysis") is True
            and (art.get("crop_method") != "manual" or art.get("crop_verified") is not True)
        ):
            problems.append(f"artifacts[{index}] trusted slide_region needs a verified manual crop")
        elif scope not in ("slide_region", "full_frame_context"):
            problems.append(f"artifacts[{index}].artifact_scope is unknown")
    method = m.get("slide_region_method")
    region = m.get("slide_region")
    if method not in ("auto", "manual", "none"):
        problems.append("slide_region_method must be auto, manual or none")
    if method == "none" and (region is not None or m.get("slide_region_applied") is not False):
        problems.append("slide_region_method none forbids a region")
    if method in ("auto", "manual") and not (
        isinstance(region, list)
        and len(region) == 4
        and all(is_number(v) and 0 <= v <= 1 for v in region)
    ):
        problems.append("a crop method needs a normalized four-number slide_region")
    if m.get("slide_region_verified") is True and method != "manual":
        problems.append("only a manual crop can be verified")
    if method == "manual" and m.get("slide_region_detected") is not False:
        problems.append("slide_region_detected is false for a manual region")
    if m.get("review_required") is False and not _verified_slide_region(m):
        problems.append("review_required false is accepted only for a verified manual slide_region")
    return problems


def _verified_slide_region(m: dict[str, Any]) -> bool:
    if m.get("slide_region_method") != "manual" or m.get("slide_region_verified") is not True:
        return False
    for art in m.get("artifacts") or ():
        if (
            isinstance(art, dict)
            and art.get("artifact_scope") == "slide_region"
            and art.get("crop_method") == "manual"
            and art.get("crop_verified") is True
            and art.get("trusted_for_authored_slide_analysis") is True
        ):
            return True
    return False


def assess(manifest: Any) -> ManifestVerdict:
    if not isinstance(manifest, dict):
        return ManifestVerdict(("the manifest must be an object",), False, None)
    problems = _registered_schema_problems(manifest) + _spec_problems(manifest)
    vid = (
        manifest.get("source_video_id")
        if isinstance(manifest.get("source_video_id"), str)
        else None
    )
    trusted = (
        not problems
        and _verified_slide_region(manifest)
        and manifest.get("review_required") is False
    )
    return ManifestVerdict(tuple(problems), trusted, vid)
