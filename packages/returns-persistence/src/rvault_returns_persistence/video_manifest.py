"""Trust decision for a video-extraction manifest carried by a return.

A video-extracted return may claim authored-slide evidence only from a
complete schema-v3 manifest whose slide_region artifact is a verified manual
crop. The manifest is the video-extraction owner's contract, so the decision
is theirs: ``rvault_video_extraction.api.validate_manifest`` applies the
registered ``video-manifest`` v3 schema, the referential rules, the vault
path rules and the PDF probes. This module only adapts its report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ManifestVerdict:
    problems: tuple[str, ...]  # why the manifest is not a valid current v3 unit
    trusted: bool  # valid and carrying a verified manual slide_region
    source_video_id: str | None
    status: str = "current"  # the owner's verdict, as `rvault-video validate` prints it

    @property
    def valid(self) -> bool:
        return not self.problems


def assess(manifest: Any, *, vault_root: Path) -> ManifestVerdict:
    from rvault_video_extraction import api as video  # only video-extracted returns need it

    report = video.validate_manifest(manifest, vault_root=vault_root, probe_pdfs=True)
    problems = tuple(f"{i.code} at {i.path}: {i.message}" for i in report.issues)
    if report.status != "current" and not problems:
        problems = (f"manifest status {report.status}",)
    vid = manifest.get("source_video_id") if isinstance(manifest, dict) else None
    return ManifestVerdict(
        problems, report.trusted, vid if isinstance(vid, str) else None, report.status
    )
