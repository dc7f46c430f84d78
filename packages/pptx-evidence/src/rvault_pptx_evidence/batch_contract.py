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


def manifest_issues(
    skipped: list[dict[str, Any]], evidence_paths: list[str], exclusions: list[str]
) -> list[str]:
    """Structural rules of a scan result: canonical paths, honest exclusion
    receipts, nothing below an excluded directory, no skip nested below
    another non-root skip."""
    issues = []
    folded = {name.casefold() for name in exclusions}
    paths = [s["path"] for s in skipped] + evidence_paths
    issues += [
        f"path {p!r} is not canonical root-relative"
        for p in paths
        if not canonical_relative_path(p)
    ]
    for item in skipped:
        reason = item["reason"]
        if reason not in POLICY_SKIP_REASON_CODES + INCOMPLETE_REASON_CODES:
            issues.append(f"{item['path']!r}: reason {reason!r} is not a per-entry reason")
        if reason == "pptx_batch_directory_excluded" and (
            item["path"] == "." or item["path"].rsplit("/", 1)[-1].casefold() not in folded
        ):
            issues.append(f"{item['path']!r}: exclusion receipt for a name not excluded")
    excluded = [s["path"] for s in skipped if s["reason"] == "pptx_batch_directory_excluded"]
    for path in evidence_paths:
        if any(_below(path, other) or path == other for other in excluded):
            issues.append(f"{path!r}: evidence below an excluded directory")
    for item in skipped:
        for other in skipped:
            if other is not item and _below(item["path"], other["path"]):
                issues.append(f"{item['path']!r}: skip nested below the skip {other['path']!r}")
    return issues


def envelope_issues(envelope: dict[str, Any]) -> list[str]:
    """Cross-field rules of a schema-valid envelope the schema cannot state."""
    issues = []
    expected = incomplete_reason_codes(envelope["skipped"])
    if "error" in envelope:
        expected = sorted({s["reason"] for s in envelope["skipped"]})
    if sorted(envelope["incomplete_reason_codes"]) != expected:
        issues.append("incomplete_reason_codes are not recomputable from skipped[]")
    if envelope["complete"] != (not expected):
        issues.append("complete does not match the recomputed reason codes")
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
