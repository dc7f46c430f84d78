"""The directory-batch taxonomy and the rules both owner and reader apply.

``skipped[]`` receipts use a closed reason vocabulary. Policy reasons record
a boundary the owner chose (an excluded directory, a PowerPoint lock file)
and never make a batch incomplete; every other per-entry reason does.
Whole-root reasons only appear in a failure envelope's single root receipt.
Completeness is always recomputed from ``skipped[]``, never trusted.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from rvault_contracts.issues import Issue

POLICY_SKIP_REASON_CODES = ("pptx_batch_directory_excluded", "pptx_batch_lock_file")
INCOMPLETE_REASON_CODES = (
    "pptx_batch_entry_limit",
    "pptx_batch_file_limit",
    "pptx_batch_depth_limit",
    "pptx_batch_symlink_refused",
    "pptx_batch_special_file",
    "pptx_batch_directory_unreadable",
    "pptx_batch_name_invalid",
    "pptx_batch_deck_refused",
    "pptx_batch_deadline",
)
ROOT_REASON_CODES = (
    "pptx_batch_root_invalid",
    "pptx_batch_worker_failed",
    "pptx_batch_protocol_mismatch",
)
MAX_PATH_CHARS = 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


def canonical_relative_path(path: object) -> bool:
    """``.`` or a bounded, canonical, ``/``-separated root-relative path."""
    if path == ".":
        return True
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_CHARS:
        return False
    if path.startswith("/") or "\\" in path or _DRIVE.match(path):
        return False
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def valid_component(name: object) -> bool:
    """An exclusion entry: one path component, nothing that could name a path."""
    return (
        isinstance(name, str) and "/" not in name and canonical_relative_path(name) and name != "."
    )


def incomplete_reason_codes(skipped: list[dict[str, Any]]) -> list[str]:
    return sorted({s["reason"] for s in skipped if s["reason"] not in POLICY_SKIP_REASON_CODES})


def _below(path: str, ancestor: str) -> bool:
    return ancestor != "." and path.startswith(ancestor + "/")


#: Codes of the batch's cross-field rules (``Issue.code``; ``path`` is the JSON path).
BATCH_PATH_NOT_CANONICAL = "batch_path_not_canonical"
BATCH_REASON_INVALID = "batch_reason_invalid"
BATCH_EXCLUSION_UNFOUNDED = "batch_exclusion_unfounded"
BATCH_EVIDENCE_EXCLUDED = "batch_evidence_below_exclusion"
BATCH_SKIP_NESTED = "batch_skip_nested"
BATCH_REASONS_MISMATCH = "batch_reason_codes_mismatch"
BATCH_COMPLETE_MISMATCH = "batch_complete_mismatch"


def manifest_issues(
    skipped: list[dict[str, Any]],
    evidence_paths: list[str],
    exclusions: list[str],
    evidence_key: str = "results",
) -> list[Issue]:
    """Structural rules of a scan result: canonical paths, honest exclusion
    receipts, nothing below an excluded directory, no skip nested below
    another non-root skip. ``evidence_key`` names the evidence list in the
    JSON paths (``results`` of an envelope, ``decks`` of a worker manifest)."""
    issues = [
        Issue(BATCH_PATH_NOT_CANONICAL, where, f"path {p!r} is not canonical root-relative")
        for where, p in [
            *((f"$.skipped[{n}].path", s["path"]) for n, s in enumerate(skipped)),
            *((f"$.{evidence_key}[{n}].path", p) for n, p in enumerate(evidence_paths)),
        ]
        if not canonical_relative_path(p)
    ]
    issues += _receipt_issues(skipped, exclusions)
    excluded = [s["path"] for s in skipped if s["reason"] == "pptx_batch_directory_excluded"]
    for n, path in enumerate(evidence_paths):
        if any(_below(path, other) or path == other for other in excluded):
            message = f"{path!r}: evidence below an excluded directory"
            issues.append(Issue(BATCH_EVIDENCE_EXCLUDED, f"$.{evidence_key}[{n}].path", message))
    for n, item in enumerate(skipped):
        for other in skipped:
            if other is not item and _below(item["path"], other["path"]):
                message = f"{item['path']!r}: skip nested below the skip {other['path']!r}"
                issues.append(Issue(BATCH_SKIP_NESTED, f"$.skipped[{n}].path", message))
    return issues


def _receipt_issues(skipped: list[dict[str, Any]], exclusions: list[str]) -> list[Issue]:
    """Each receipt names a per-entry reason; an exclusion receipt an excluded name."""
    folded = {name.casefold() for name in exclusions}
    issues = []
    for n, item in enumerate(skipped):
        reason = item["reason"]
        if reason not in POLICY_SKIP_REASON_CODES + INCOMPLETE_REASON_CODES:
            message = f"{item['path']!r}: reason {reason!r} is not a per-entry reason"
            issues.append(Issue(BATCH_REASON_INVALID, f"$.skipped[{n}].reason", message))
        if reason == "pptx_batch_directory_excluded" and (
            item["path"] == "." or item["path"].rsplit("/", 1)[-1].casefold() not in folded
        ):
            message = f"{item['path']!r}: exclusion receipt for a name not excluded"
            issues.append(Issue(BATCH_EXCLUSION_UNFOUNDED, f"$.skipped[{n}]", message))
    return issues


def envelope_issues(envelope: dict[str, Any]) -> list[Issue]:
    """Cross-field rules of a schema-valid envelope the schema cannot state."""
    issues = []
    expected = incomplete_reason_codes(envelope["skipped"])
    if "error" in envelope:
        expected = sorted({s["reason"] for s in envelope["skipped"]})
    if sorted(envelope["incomplete_reason_codes"]) != expected:
        message = "incomplete_reason_codes are not recomputable from skipped[]"
        issues.append(Issue(BATCH_REASONS_MISMATCH, "$.incomplete_reason_codes", message))
    if envelope["complete"] != (not expected):
        message = "complete does not match the recomputed reason codes"
        issues.append(Issue(BATCH_COMPLETE_MISMATCH, "$.complete", message))
    if "error" not in envelope:
        results = [r["path"] for r in envelope["results"]]
        issues += manifest_issues(envelope["skipped"], results, _excluded_names(envelope))
    return issues


def _excluded_names(envelope: dict[str, Any]) -> list[str]:
    return [
        s["path"].rsplit("/", 1)[-1]
        for s in envelope["skipped"]
        if s["reason"] == "pptx_batch_directory_excluded"
    ]
