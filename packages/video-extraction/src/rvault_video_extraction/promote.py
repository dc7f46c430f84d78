"""``promote``: a trusted slide_region PDF becomes the talk's deck, ``slides/{id}.pdf``.

The spec's artifact gate allows exactly one video artifact to be analysed
like an authored deck: a slide_region whose manifest (schema v4, validated
as one referential unit) trusts it and has ``review_required: false``. This
module applies that gate with the owner's own validator and copies the very
bytes the validator probed (same SHA-256) through the writer protocol, so a
PDF swapped between validation and copy is refused, a concurrent writer is
excluded by the lock, and a refusal leaves ``slides/`` as it was. An existing
``slides/{id}.pdf`` with other content (an authored deck fetched from Drive)
is only replaced with ``--replace``. The tracking database is not touched:
the caller records the printed ``slides_local_path`` with the database owner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.writer import Snapshot, WriteReport, install, read_snapshot

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.manifest_validation import ManifestReport, read_manifest_document
from rvault_video_extraction.vault_paths import (
    locate_in_vault,
    make_directories,
    remove_created,
    resolve_vault_root,
)

SLIDES_DIR = "slides"


@dataclass(frozen=True)
class PromoteRequest:
    manifest: Path
    vault_root: Path
    replace: bool = False


def _untrusted_reason(document: dict[str, Any]) -> str:
    """Why the gate is closed, in the words of the spec's artifact gate."""
    method = document.get("slide_region_method")
    if not any(a.get("artifact_scope") == "slide_region" for a in document.get("artifacts", [])):
        return (
            "the manifest has no slide_region artifact (only full-frame context): inspect the "
            "contact sheet, then rerun extract with --region L,T,R,B --region-verified --force"
        )
    if method != "manual":
        return (
            f"the slide region is {method}, and an automatic crop is never trusted: inspect "
            "the contact sheet, then rerun extract with --region L,T,R,B --region-verified --force"
        )
    if not document.get("slide_region_verified"):
        return "the manual region is not verified: rerun extract with --region-verified --force"
    receipt = document.get("source_receipt")
    if isinstance(receipt, dict) and receipt.get("decode_complete") is False:
        return (
            "the decode stopped short of the recording's declared duration (truncated or "
            "damaged file): re-download or repair it and extract again"
        )
    return "review_required is true"


def _trusted_source(report: ManifestReport, document: dict[str, Any], manifest: Path) -> Path:
    """The trusted slide_region PDF of a current, valid manifest; each other state says why
    it is not promoted."""
    if report.status == "legacy":
        raise VideoExtractionError(
            "manifest_untrusted",
            f"not promoted: a legacy (schema {report.schema_version or 0}) manifest is never "
            "trusted; re-extract with --region L,T,R,B --region-verified --force",
            str(manifest),
        )
    if report.status == "stale":
        raise VideoExtractionError(
            "manifest_stale",
            "not promoted: the recording or a PDF changed since extraction "
            f"({', '.join(report.codes)})",
            str(manifest),
            hint="extract again from the recording you mean (rvault-video extract ... --force), "
            "then promote",
        )
    if not report.usable or report.status != "current":
        code = "manifest_unusable" if report.status in ("future", "invalid") else "manifest_invalid"
        raise VideoExtractionError(
            code,
            f"the manifest is {report.status} ({', '.join(report.codes) or 'no current schema'});"
            " only a current schema-v4 manifest can be promoted",
            str(manifest),
        )
    if not report.trusted or report.trusted_slide_region_path is None:
        raise VideoExtractionError(
            "manifest_untrusted",
            f"not promoted: {_untrusted_reason(document)}",
            str(manifest),
        )
    return Path(report.trusted_slide_region_path)


def _validated_bytes(source: Path, probed: str | None) -> bytes:
    """The slide-region PDF, still the bytes the validation probed."""
    data = read_snapshot(source).data
    if data is None or hashlib.sha256(data).hexdigest() != probed:
        raise VideoExtractionError(
            "input_changed",
            "the slide-region PDF changed after it was validated; run promote again",
            str(source),
        )
    return data


def _install_slides(
    storage: Path, video_id: str, data: bytes, replace: bool
) -> tuple[Snapshot, WriteReport]:
    """Install ``slides/{id}.pdf``: what it held before, and the write; a directory this
    created is removed again when it fails."""
    slides_dir = locate_in_vault(storage / SLIDES_DIR, storage, storage, must_exist=False)
    target = slides_dir / f"{video_id}.pdf"
    created = make_directories(slides_dir, "slides_dir_unwritable", "the slides directory")
    try:
        locate_in_vault(target, storage, storage, must_exist=False)
        expected = read_snapshot(target)
        if expected.exists and expected.data != data and not replace:
            raise VideoExtractionError(
                "target_exists",
                f"{SLIDES_DIR}/{video_id}.pdf already holds another PDF "
                f"({len(expected.data or b'')} bytes, sha256 {expected.sha256}; an authored "
                "deck?) that promoting would replace",
                str(target),
                hint="keep it (an authored deck is better evidence than video frames), or pass "
                "--replace to overwrite it with the video extraction",
            )
        return expected, install(target, data, expected=expected)
    except BaseException:
        remove_created(created)
        raise


def promote(request: PromoteRequest) -> dict[str, Any]:
    """Copy the trusted slide_region PDF to ``slides/{id}.pdf``; return the promotion report."""
    storage = resolve_vault_root(request.vault_root)
    document, report = read_manifest_document(request.manifest, vault_root=request.vault_root)
    source = _trusted_source(report, document, request.manifest)
    video_id = document["source_video_id"]
    probed = report.pdf_sha256.get(str(source))
    data = _validated_bytes(source, probed)
    expected, written = _install_slides(storage, video_id, data, request.replace)
    page_count = next(
        a["page_count"] for a in document["artifacts"] if a["artifact_scope"] == "slide_region"
    )
    return {
        "page_count": page_count,
        "replaced_other_pdf": bool(expected.exists and expected.data != data),
        "slides_local_path": f"{SLIDES_DIR}/{video_id}.pdf",
        "source_artifact_path": str(source),
        "source_sha256": probed,
        "video_id": video_id,
        "write": written.to_dict(),
    }
