"""``rvault-video validate``: a manifest's report, or the refusal it calls for.

The report is :func:`rvault_video_extraction.api.read_manifest`'s (the same
reader every consumer uses); this module only decides which states refuse
(exit 2, the report attached) and which next action each names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.errors import Refusal

from rvault_video_extraction.api import read_manifest


@dataclass(frozen=True)
class ValidateRequest:
    manifest: Path
    vault_root: Path
    video_id: str | None = None
    """The talk's youtube_id the manifest must belong to."""
    require_trusted: bool = False
    """Refuse unless the manifest trusts a verified manual slide_region."""


def validate(request: ValidateRequest) -> dict[str, Any]:
    """The report of a usable, current manifest (``ok: true``); any other state refuses."""
    if not request.vault_root.is_dir():
        raise Refusal(
            "vault_root_missing", "--vault-root is not a directory", str(request.vault_root)
        )
    report = read_manifest(
        request.manifest, vault_root=request.vault_root, expected_video_id=request.video_id
    )
    document = report.to_dict()
    manifest = str(request.manifest)
    if report.status == "recovery_pending":  # a kill tore the bundle: not a hash mismatch
        raise Refusal(
            "bundle_recovery_pending",
            report.issues[0].message,
            manifest,
            report=document,
            hint="run the interrupted rvault-video extract again (it settles the bundle first, "
            "then extracts), then validate",
        )
    if not report.usable:
        code = "manifest_unusable" if report.status in ("future", "invalid") else "manifest_invalid"
        raise Refusal(code, f"the manifest is {report.status}", manifest, report=document)
    if report.status == "stale":
        raise Refusal(
            "manifest_stale",
            "the recording or a PDF no longer has the bytes the manifest recorded: "
            + "; ".join(issue.message for issue in report.issues),
            manifest,
            report=document,
            hint="extract again from the recording you mean (rvault-video extract VIDEO OUTDIR "
            "VIDEO_ID --force, with your checked --region ... --region-verified)",
        )
    if request.require_trusted and not report.trusted:
        raise Refusal(
            "manifest_untrusted",
            "no trusted slide_region artifact (review required)",
            manifest,
            report=document,
        )
    document["ok"] = True
    return document
