"""pptx_catalog v1/v2 and the v2 visual-evidence receipt.

v1 knows only a bare ``visual_extracted`` boolean (a ``visual_evidence`` key
is an unknown field). v2 binds the boolean to a receipt. The receipt's shape
is fatal at the writer (``record_pptx``) but only a per-record warning at the
database assessment, so one bad receipt never makes the whole vault unusable.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.canonical import is_sha256_hex
from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import checks, shapes
from rvault_tracking_db.assessment.model import child, is_int

PPTX = "db-pptx-catalog"
PPTX_VERSIONS = shapes.versions(PPTX)
CURRENT_PPTX_VERSION = max(PPTX_VERSIONS)
# The receipt's closed shape, as the v2 schema's $defs state it.
_RECEIPT = ("$defs", "receipt_succeeded", "allOf", 0)
RECEIPT_FIELDS = shapes.properties(PPTX, CURRENT_PPTX_VERSION, *_RECEIPT)
RECEIPT_OUTCOMES = tuple(
    shapes.node(PPTX, CURRENT_PPTX_VERSION, *_RECEIPT, "properties", "outcome")["enum"]
)
_FINGERPRINT_FIELDS = frozenset(
    shapes.required(PPTX, CURRENT_PPTX_VERSION, *_RECEIPT, "properties", "source_fingerprint")
)

_V1_REQUIRED = shapes.required(PPTX, 1)
_V1_OPTIONAL = shapes.optional(PPTX, 1)
_V2_REQUIRED = shapes.required(PPTX, 2)


def receipt_problems(receipt: Any) -> list[tuple[str, str]]:
    """(relative path, message) for every shape problem of a non-null receipt."""
    problems: list[tuple[str, str]] = []
    if not isinstance(receipt, dict):
        return [("$", "visual_evidence must be null or a receipt object")]
    allowed = RECEIPT_FIELDS
    for key in receipt:
        if key not in allowed:
            problems.append((child("$", key), f"unknown receipt field {key!r}"))
    for key in sorted(allowed):
        if key not in receipt:
            problems.append((child("$", key), f"receipt requires {key!r}"))
    outcome = receipt.get("outcome")
    if "outcome" in receipt and outcome not in RECEIPT_OUTCOMES:
        problems.append(('$["outcome"]', "outcome must be succeeded or failed"))
    version = receipt.get("extractor_schema_version")
    if "extractor_schema_version" in receipt and (not is_int(version) or version < 0):
        problems.append(('$["extractor_schema_version"]', "must be a non-negative integer"))
    pipeline = receipt.get("pipeline_version")
    if "pipeline_version" in receipt and (not isinstance(pipeline, str) or not pipeline.strip()):
        problems.append(('$["pipeline_version"]', "must be a non-empty string"))
    if "source_fingerprint" in receipt:
        problems.extend(_fingerprint_problems(receipt["source_fingerprint"]))
    if "artifact" in receipt:
        artifact = receipt["artifact"]
        if outcome == "succeeded":
            problems.extend(_artifact_problems(artifact))
        elif outcome == "failed" and artifact is not None:
            problems.append(('$["artifact"]', "a failed outcome must have artifact null"))
    return problems


def _fingerprint_problems(fingerprint: Any) -> list[tuple[str, str]]:
    base = '$["source_fingerprint"]'
    if not isinstance(fingerprint, dict):
        return [(base, "source_fingerprint must be an object")]
    problems: list[tuple[str, str]] = []
    if set(fingerprint) != _FINGERPRINT_FIELDS:
        problems.append((base, "source_fingerprint has exactly algorithm, digest, size_bytes"))
    if fingerprint.get("algorithm") != "sha256":
        problems.append((child(base, "algorithm"), "algorithm must be sha256"))
    if not is_sha256_hex(fingerprint.get("digest")):
        problems.append((child(base, "digest"), "digest must be 64 lowercase hex characters"))
    size = fingerprint.get("size_bytes")
    if not is_int(size) or size < 0:
        problems.append((child(base, "size_bytes"), "size_bytes must be a non-negative integer"))
    return problems


def _artifact_problems(artifact: Any) -> list[tuple[str, str]]:
    base = '$["artifact"]'
    if not isinstance(artifact, dict):
        return [(base, "a succeeded outcome requires an artifact object")]
    problems: list[tuple[str, str]] = []
    if set(artifact) != {"path", "sha256"}:
        problems.append((base, "artifact has exactly path and sha256"))
    path = artifact.get("path")
    if not isinstance(path, str) or not is_vault_relative(path):
        problems.append((child(base, "path"), "artifact.path must be a vault-root-relative path"))
    if not is_sha256_hex(artifact.get("sha256")):
        problems.append((child(base, "sha256"), "sha256 must be 64 lowercase hex characters"))
    return problems


def is_vault_relative(path: str) -> bool:
    """A '/'-separated relative path without empty, '.' or '..' segments."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def assess_pptx(record: Any, path: str, issues: Collector, *, missing_version: int | None) -> None:
    version = checks.record_version(
        record, path, PPTX_VERSIONS, issues, missing=missing_version, what="pptx_catalog record"
    )
    if version is None:
        return
    if version == 1:
        checks.closed_fields(
            record,
            path,
            issues,
            required=_V1_REQUIRED,
            optional=_V1_OPTIONAL,
            what="pptx_catalog v1",
        )
    else:
        checks.closed_fields(record, path, issues, required=_V2_REQUIRED, what="pptx_catalog v2")
    checks.check_nonempty_string(record, "pptx_path", path, issues)
    checks.check_type(record, "talk_filename", path, issues, ("string", "null"))
    checks.check_type(record, "matched", path, issues, ("boolean",))
    checks.check_count(record, "slide_count", path, issues)
    checks.check_type(record, "visual_extracted", path, issues, ("boolean",))
    if version == 2 and "visual_evidence" in record:
        _assess_receipt(record, path, issues)


def _assess_receipt(record: dict[str, Any], path: str, issues: Collector) -> None:
    receipt = record["visual_evidence"]
    rpath = child(path, "visual_evidence")
    extracted = record.get("visual_extracted")
    if receipt is None:
        expected = False
    else:
        problems = receipt_problems(receipt)
        if problems:
            sub, message = problems[0]
            issues.warn(
                "pptx_visual_evidence_malformed",
                rpath + sub[1:],
                f"visual evidence receipt is not trusted: {message}",
            )
            return
        expected = receipt["outcome"] == "succeeded"
    if isinstance(extracted, bool) and extracted is not expected:
        issues.add(
            "visual_extracted_mismatch",
            child(path, "visual_extracted"),
            "visual_extracted must mirror whether visual_evidence records a success",
        )
