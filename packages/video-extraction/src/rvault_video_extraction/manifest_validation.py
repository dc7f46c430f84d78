"""The referential validator of video manifests (light: no cv2, no yt_dlp).

JSON Schema checks the shape of v4 (and v3); this module checks what a schema cannot,
as the spec's ingress does "as one referential unit before trusting it":
identities agree; region geometry agrees with the detected/applied/method/
verified flags; retained frames and page counts agree with
``unique_frame_count``; scope, crop, verification and trust flags are
mutually consistent; paths obey the vault path rules; every PDF passes the
bounded probe with its recorded page count; and (v4) the source receipt
agrees with itself (its completeness rule, its vault path) and the recording
and PDFs still have the recorded bytes (``freshness``): a replaced, missing or
unreadable recording or a replaced PDF makes the report ``stale`` (readable,
never trusted). Version handling follows the reader contract: no
``schema_version`` is legacy v0, v1 and v2 are legacy (readable, never
trusted), v3 is fully validated but legacy (``source_receipt_missing``: no
digest binds it to its recording), a version above 4 is unusable.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Collector, Issue, render
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import StrictJSONError, loads_strict
from rvault_contracts.writer import pending_bundle

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.freshness import STALE_CODES, pdf_issue, recording_issues
from rvault_video_extraction.manifest import CONTEXT_SCOPE, SLIDE_REGION_SCOPE
from rvault_video_extraction.pdf_probe import PdfProbeError, probe_pdf
from rvault_video_extraction.source_receipt import decode_complete
from rvault_video_extraction.vault_paths import descendant_issues, path_text_issues
from rvault_video_extraction.versioning import SCHEMA_VERSION

CURRENT_VERSION = SCHEMA_VERSION
LEGACY_VERSIONS = (0, 1, 2)
RECEIPTLESS_VERSION = 3  # fully validated, then reported legacy: no source digest
ARTIFACT_ID = "video-manifest"


@dataclass(frozen=True)
class ManifestReport:
    """``status``: current | stale | legacy | future | invalid | recovery_pending.

    ``usable``: the record may be read (current and valid, stale, or legacy);
    ``trusted``: a verified manual slide_region artifact may be used for
    authored-slide analysis (current, valid, review not required, decoded to
    the end, recording and PDFs unchanged). ``stale``: valid, but the
    recording or a PDF no longer has the recorded bytes (codes in
    ``freshness.STALE_CODES``); never trusted. ``recovery_pending``: a bundle
    torn by a kill awaits its journal's recovery (:func:`recovery_pending`).
    """

    status: str
    schema_version: int | None
    usable: bool
    trusted: bool
    issues: tuple[Issue, ...] = ()
    trusted_slide_region_path: str | None = None
    pdf_sha256: dict[str, str] = field(default_factory=dict)

    @property
    def codes(self) -> list[str]:
        return sorted({issue.code for issue in self.issues})

    def to_dict(self) -> dict[str, Any]:
        return {
            "issues": render(self.issues),
            "pdf_sha256": dict(sorted(self.pdf_sha256.items())),
            "schema_version": self.schema_version,
            "status": self.status,
            "trusted": self.trusted,
            "trusted_slide_region_path": self.trusted_slide_region_path,
            "usable": self.usable,
        }


def _version_of(document: dict[str, Any]) -> tuple[str, int | None]:
    if "schema_version" not in document:
        return "legacy", 0
    version = document["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        return "invalid", None
    if version in LEGACY_VERSIONS:
        return "legacy", version
    if version > CURRENT_VERSION:
        return "future", version
    if version in (RECEIPTLESS_VERSION, CURRENT_VERSION):
        return "current", version
    return "invalid", version


def _check_region(doc: dict[str, Any], out: Collector) -> None:
    region = doc["slide_region"]
    applied = doc["slide_region_applied"]
    method = doc["slide_region_method"]
    detected = doc["slide_region_detected"]
    verified = doc["slide_region_verified"]
    if region is not None:
        left, top, right, bottom = region
        if not (left < right and top < bottom):
            out.add(
                "region_geometry_invalid",
                "$.slide_region",
                "slide_region needs left < right and top < bottom",
            )
    if applied != (region is not None):
        out.add(
            "region_flags_inconsistent",
            "$.slide_region_applied",
            "slide_region_applied must equal slide_region != null",
        )
    if (method == "none") != (not applied):
        out.add(
            "region_flags_inconsistent",
            "$.slide_region_method",
            "method none exactly when no region is applied",
        )
    if method == "auto" and (not detected or verified):
        out.add(
            "region_flags_inconsistent",
            "$.slide_region_method",
            "an auto region is detected and never verified",
        )
    if method != "auto" and detected:
        out.add(
            "region_flags_inconsistent",
            "$.slide_region_detected",
            "slide_region_detected is true only for an auto region",
        )
    if verified and method != "manual":
        out.add(
            "region_flags_inconsistent",
            "$.slide_region_verified",
            "only a manual region can be verified",
        )


def _check_frames(doc: dict[str, Any], out: Collector) -> None:
    frames = doc["retained_frames"]
    unique = doc["unique_frame_count"]
    total = doc["total_frames_extracted"]
    fps = doc["fps_used"]
    if len(frames) != unique:
        out.add(
            "page_count_mismatch",
            "$.retained_frames",
            "retained_frames must have unique_frame_count entries",
        )
    if unique > total:
        out.add(
            "frame_count_inconsistent",
            "$.unique_frame_count",
            "more retained frames than sampled frames",
        )
    previous = -1
    for position, frame in enumerate(frames):
        where = f"$.retained_frames[{position}]"
        if frame["page_number"] != position + 1:
            out.add("retained_frames_order", where, "page_number must count 1, 2, 3 ... in order")
        index = frame["frame_index"]
        if index <= previous or index >= total:
            out.add(
                "retained_frames_order",
                where,
                "frame_index must increase and stay below total_frames_extracted",
            )
        previous = index
        expected = index / fps
        if not math.isclose(frame["timestamp_seconds"], expected, rel_tol=1e-9, abs_tol=1e-6):
            out.add(
                "timestamp_mismatch", where, "timestamp_seconds must equal frame_index / fps_used"
            )


def _check_review(doc: dict[str, Any], out: Collector) -> bool:
    """Review is required unless the region is trustworthy; returns whether it is.

    Trustworthy: a verified manual slide_region of a recording decoded to its end.
    """
    review_required = doc["review_required"]
    receipt = doc.get("source_receipt")
    complete = receipt is None or receipt["decode_complete"]
    trustworthy = (
        doc["slide_region_applied"]
        and doc["slide_region_method"] == "manual"
        and doc["slide_region_verified"]
        and complete
    )
    if review_required == trustworthy:
        out.add(
            "review_inconsistent",
            "$.review_required",
            "review_required is false exactly for a verified manual slide_region "
            "of a recording decoded to its end",
        )
    if (doc["review_reason"] is None) != (not review_required):
        out.add(
            "review_inconsistent",
            "$.review_reason",
            "review_reason is null exactly when no review is required",
        )
    return trustworthy


def _check_scopes(doc: dict[str, Any], out: Collector) -> None:
    """One context artifact, a slide_region exactly when applied, no file twice."""
    artifacts = doc["artifacts"]
    scopes = [artifact["artifact_scope"] for artifact in artifacts]
    if scopes.count(CONTEXT_SCOPE) != 1 or scopes.count(SLIDE_REGION_SCOPE) > 1:
        out.add(
            "artifact_scope_invalid",
            "$.artifacts",
            "exactly one full_frame_context and at most one slide_region",
        )
    if (SLIDE_REGION_SCOPE in scopes) != doc["slide_region_applied"]:
        out.add(
            "artifact_scope_invalid",
            "$.artifacts",
            "a slide_region artifact exists exactly when a region is applied",
        )
    paths = [artifact["path"] for artifact in artifacts]
    if len(set(paths)) != len(paths):
        out.add("artifact_path_duplicate", "$.artifacts", "artifacts must be distinct files")


def _check_artifact_identity(
    doc: dict[str, Any], artifact: dict[str, Any], where: str, out: Collector
) -> None:
    """An artifact names the manifest's video and holds one page per unique frame."""
    if artifact["source_video_id"] != doc["source_video_id"]:
        out.add(
            "artifact_identity_mismatch",
            where + ".source_video_id",
            "artifact and manifest name different videos",
        )
    if artifact["source_video_path"] != doc["source_video_path"]:
        out.add(
            "artifact_identity_mismatch",
            where + ".source_video_path",
            "artifact and manifest name different video files",
        )
    if artifact["page_count"] != doc["unique_frame_count"]:
        out.add(
            "page_count_mismatch",
            where + ".page_count",
            "page_count must equal unique_frame_count",
        )


def _check_artifact_flags(
    doc: dict[str, Any], artifact: dict[str, Any], where: str, trustworthy: bool, out: Collector
) -> None:
    """Context is uncropped and untrusted; a slide_region carries the manifest's region flags."""
    trusted = artifact["trusted_for_authored_slide_analysis"]
    if artifact["artifact_scope"] == CONTEXT_SCOPE:
        if artifact["crop_method"] != "none" or artifact["crop_verified"] or trusted:
            out.add(
                "artifact_flags_inconsistent",
                where,
                "full_frame_context is uncropped, unverified and never trusted",
            )
        return
    method, verified = doc["slide_region_method"], doc["slide_region_verified"]
    if artifact["crop_method"] != method or artifact["crop_verified"] != verified:
        out.add(
            "artifact_flags_inconsistent",
            where,
            "slide_region crop flags must match the manifest's region flags",
        )
    if trusted != (trustworthy and not doc["review_required"]):
        out.add(
            "trust_inconsistent",
            where + ".trusted_for_authored_slide_analysis",
            "trust is granted only to a verified manual slide_region",
        )


def _check_artifacts(doc: dict[str, Any], out: Collector) -> dict[str, Any] | None:
    """Review, scopes, then each artifact's identity and flags; returns the slide_region one."""
    trustworthy = _check_review(doc, out)
    _check_scopes(doc, out)
    slide_artifact = None
    for position, artifact in enumerate(doc["artifacts"]):
        where = f"$.artifacts[{position}]"
        _check_artifact_identity(doc, artifact, where, out)
        _check_artifact_flags(doc, artifact, where, trustworthy, out)
        if artifact["artifact_scope"] != CONTEXT_SCOPE:
            slide_artifact = artifact
    return slide_artifact


def _located_paths(document: dict[str, Any]) -> list[tuple[str, Any]]:
    """(JSON path, value) of every path field; tolerates a document of invalid shape."""
    located: list[tuple[str, Any]] = [("$.source_video_path", document.get("source_video_path"))]
    artifacts = document.get("artifacts")
    if isinstance(artifacts, list):
        for position, artifact in enumerate(artifacts):
            if isinstance(artifact, dict):
                located.append((f"$.artifacts[{position}].path", artifact.get("path")))
    return located


def _check_paths(
    doc: dict[str, Any], out: Collector, storage_root: Path | None, probe: bool
) -> dict[str, str]:
    receipt_bound = "source_receipt" in doc
    for where, text in _located_paths(doc):
        out.extend(path_text_issues(text, where))
        if storage_root is not None and not (receipt_bound and where == "$.source_video_path"):
            # A v4 recording is re-checked by its receipt (missing = stale, not invalid).
            out.extend(descendant_issues(text, storage_root, where))
    digests: dict[str, str] = {}
    if not probe or storage_root is None:
        return digests
    for position, artifact in enumerate(doc["artifacts"]):
        where = f"$.artifacts[{position}].path"
        if any(issue.path == where for issue in out.items):
            continue
        if receipt_bound and _size_changed(artifact):
            out.extend([pdf_issue("changed", f"$.artifacts[{position}]", artifact["path"])])
            continue  # a different size is stale without parsing a byte
        try:
            result = probe_pdf(artifact["path"])
        except PdfProbeError as exc:
            out.add(exc.code, where, exc.message)
            continue
        digests[artifact["path"]] = result.sha256
        if receipt_bound and result.sha256 != artifact["sha256"]:
            out.extend([pdf_issue("changed", f"$.artifacts[{position}]", artifact["path"])])
            continue
        if result.page_count != artifact["page_count"]:
            out.add(
                "pdf_page_count_mismatch",
                where,
                f"the PDF has {result.page_count} pages, "
                f"the manifest says {artifact['page_count']}",
            )
    return digests


def _size_changed(artifact: dict[str, Any]) -> bool:
    try:
        return os.lstat(artifact["path"]).st_size != artifact["size_bytes"]
    except OSError:
        return False  # the probe names why it cannot be read


def _check_receipt(
    doc: dict[str, Any], out: Collector, storage_root: Path | None, probe: bool
) -> None:
    """v4: the receipt agrees with itself and the manifest; the recording still has its bytes."""
    receipt = doc["source_receipt"]
    if receipt["decode_complete"] != decode_complete(receipt, doc["fps_used"]):
        out.add(
            "source_receipt_inconsistent",
            "$.source_receipt.decode_complete",
            "decode_complete must be what the receipt's duration, demuxed end and decoded "
            "span give",
        )
    locator = "/" + receipt["vault_path"]
    out.extend(
        path_text_issues(locator, "$.source_receipt.vault_path", "a vault-relative POSIX locator")
    )
    if storage_root is None or any(i.path == "$.source_receipt.vault_path" for i in out.items):
        return
    if str(storage_root / receipt["vault_path"]) != doc["source_video_path"]:
        out.add(
            "source_receipt_inconsistent",
            "$.source_receipt.vault_path",
            "source_receipt.vault_path must name source_video_path below the vault root",
        )
    elif probe:
        out.extend(recording_issues(receipt, storage_root))


def _path_text_codes(document: dict[str, Any], out: Collector) -> None:
    """Name the path rule a malformed path breaks, even when the shape is invalid."""
    for where, text in _located_paths(document):
        if isinstance(text, str):
            out.extend(
                path_text_issues(
                    text,
                    where,
                    "manifest paths are native absolute without dot segments or foreign syntax",
                )
            )


def _unvalidated_report(document: Any) -> ManifestReport | None:
    """The report of a document whose version is not validated field by field, else None."""
    if not isinstance(document, dict):
        return ManifestReport(
            "invalid",
            None,
            False,
            False,
            (Issue("not_an_object", "$", "a manifest is a JSON object"),),
        )
    status, version = _version_of(document)
    if status == "legacy":
        issue = Issue(
            "legacy_manifest",
            "$.schema_version",
            f"schema_version {version} is legacy: readable, never trusted; re-extract",
        )
        return ManifestReport("legacy", version, True, False, (issue,))
    if status == "future":
        issue = Issue(
            "future_manifest",
            "$.schema_version",
            f"schema_version {version} is newer than this reader: "
            "no usable prior state; re-extract",
        )
        return ManifestReport("future", version, False, False, (issue,))
    if status == "invalid":
        issue = Issue(
            "schema_version_invalid",
            "$.schema_version",
            "schema_version must be a non-negative integer",
        )
        return ManifestReport("invalid", version, False, False, (issue,))
    return None


def validate_manifest(
    document: Any,
    *,
    vault_root: str | Path | None,
    expected_video_id: str | None = None,
    probe_pdfs: bool = True,
) -> ManifestReport:
    """Validate one decoded manifest.

    ``vault_root`` is the configured vault root (it may be a symlink, which
    is resolved to the storage root). ``None`` skips the filesystem and PDF
    checks; such a report is never trusted.
    """
    early = _unvalidated_report(document)
    if early is not None:
        return early
    version = document["schema_version"]
    out = Collector()
    out.extend(schema_issues(ARTIFACT_ID, version, document))
    if out.items:
        _path_text_codes(document, out)
        return ManifestReport("invalid", version, False, False, tuple(out.items))
    if expected_video_id is not None and document["source_video_id"] != expected_video_id:
        out.add(
            "video_id_mismatch",
            "$.source_video_id",
            f"the manifest is for {document['source_video_id']}, not {expected_video_id}",
        )
    _check_region(document, out)
    _check_frames(document, out)
    slide_artifact = _check_artifacts(document, out)
    storage = Path(str(Path(vault_root).resolve())) if vault_root is not None else None
    if version == CURRENT_VERSION:
        _check_receipt(document, out, storage, probe_pdfs)
    digests = _check_paths(document, out, storage, probe_pdfs)
    issues = tuple(out.items)
    if issues and all(issue.code in STALE_CODES for issue in issues):
        return ManifestReport("stale", version, True, False, issues, pdf_sha256=digests)
    if not issues and version == RECEIPTLESS_VERSION:
        issue = Issue(
            "source_receipt_missing",
            "$.source_receipt",
            "schema_version 3 records no digest of its recording: readable, never trusted; "
            "re-extract to bind the slides to the recording's bytes",
        )
        return ManifestReport("legacy", version, True, False, (issue,), pdf_sha256=digests)
    valid = not issues
    trusted = bool(
        valid
        and storage is not None
        and probe_pdfs
        and slide_artifact is not None
        and slide_artifact["trusted_for_authored_slide_analysis"]
        and not document["review_required"]
    )
    return ManifestReport(
        status="current" if valid else "invalid",
        schema_version=version,
        usable=valid,
        trusted=trusted,
        issues=issues,
        trusted_slide_region_path=slide_artifact["path"]
        if trusted and slide_artifact is not None
        else None,
        pdf_sha256=digests,
    )


MAX_MANIFEST_BYTES = 32 * 1024 * 1024
RECOVERY_PENDING = "bundle_recovery_pending"


def recovery_pending(manifest: Path) -> ManifestReport | None:
    """The report of a bundle a kill left half installed, else None (it can be judged).

    ``extract`` installs the region PDF, context PDF, contact sheet and
    manifest as one bundle locked on the manifest's name. Killed between its
    renames, some files are new and some old until the journal beside them
    is settled, so their digests disagree for a reason that is neither a
    replaced recording nor tampering: status ``recovery_pending`` (never
    usable or trusted), naming what settles it, instead of a hash mismatch.
    """
    journal = pending_bundle(manifest)
    if journal is None:
        return None
    issue = Issue(
        RECOVERY_PENDING,
        "$",
        f"an interrupted write of this manifest's bundle awaits recovery ({journal.name}); "
        "the next `rvault-video extract` into this folder settles it",
    )
    return ManifestReport("recovery_pending", None, False, False, (issue,))


def _read_bounded(path: Path) -> bytes:
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise VideoExtractionError("manifest_unreadable", str(exc.strerror)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise VideoExtractionError(
                "manifest_not_regular_file", "the manifest is not a regular file"
            )
        if info.st_size > MAX_MANIFEST_BYTES:
            raise VideoExtractionError(
                "manifest_too_large",
                f"the manifest has {info.st_size} bytes; the limit is {MAX_MANIFEST_BYTES}",
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise VideoExtractionError("manifest_unreadable", str(exc.strerror)) from None
    finally:
        os.close(fd)
    if len(data) > MAX_MANIFEST_BYTES:
        raise VideoExtractionError(
            "manifest_too_large", f"the manifest grew beyond {MAX_MANIFEST_BYTES} bytes"
        )
    return data


def read_manifest(
    path: str | Path,
    *,
    vault_root: str | Path | None,
    expected_video_id: str | None = None,
    probe_pdfs: bool = True,
) -> ManifestReport:
    """Strictly decode a manifest file and validate it.

    Only a regular file of at most :data:`MAX_MANIFEST_BYTES` is read, so a
    FIFO, a device such as ``/dev/zero`` or a huge file cannot hang the
    reader or exhaust memory.
    """
    return read_manifest_document(
        path, vault_root=vault_root, expected_video_id=expected_video_id, probe_pdfs=probe_pdfs
    )[1]


def read_manifest_document(
    path: str | Path,
    *,
    vault_root: str | Path | None,
    expected_video_id: str | None = None,
    probe_pdfs: bool = True,
) -> tuple[Any, ManifestReport]:
    """:func:`read_manifest` plus the decoded document it validated (None if undecodable).

    A caller that acts on the manifest (``promote``) must act on the very
    bytes that were validated, not on a second read of the file.
    """
    pending = recovery_pending(Path(path))
    if pending is not None:
        return None, pending
    try:
        data = _read_bounded(Path(path))
    except VideoExtractionError as exc:
        return None, ManifestReport(
            "invalid", None, False, False, (Issue(exc.code, "$", exc.message),)
        )
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        return None, ManifestReport(
            "invalid", None, False, False, (Issue(exc.code, exc.path, exc.message),)
        )
    return document, validate_manifest(
        document, vault_root=vault_root, expected_video_id=expected_video_id, probe_pdfs=probe_pdfs
    )
