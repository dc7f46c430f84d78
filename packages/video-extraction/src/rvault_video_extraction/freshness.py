"""Are the recording and PDFs a manifest names still the bytes it recorded? (light: stdlib only)

Every reader that shows or persists video evidence (``rvault-video
validate``, ``rvault-db status``, ``rvault-returns validate/persist``, the
site) must notice a recording or PDF replaced after extraction: pages that
no longer come from the file beside them are stale, whatever the manifest's
trust flags say. The check is cheap first: a size that differs from the
recorded ``size_bytes`` is stale without reading a byte; only an equal size
is read and hashed (SHA-256 through a no-follow descriptor).

:func:`check_sources` is the public entry (``rvault_video_extraction.api``);
``manifest_validation`` runs the same recording check inside
``validate_manifest`` and compares the PDF digests its page-count probe
already computed, so a validation reads every file once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.issues import Issue, render

from rvault_video_extraction.errors import VideoExtractionError
from rvault_video_extraction.source_receipt import digest_file
from rvault_video_extraction.vault_paths import descendant_issues, path_text_issues

CURRENT = "current"
STALE = "stale"
UNBOUND = "unbound"
INVALID = "invalid"

STALE_CODES = frozenset(
    {
        "source_changed",
        "source_missing",
        "source_unreadable",
        "artifact_changed",
        "artifact_missing",
        "artifact_unreadable",
    }
)
"""Issue codes that mean "the evidence no longer matches its bytes" (state ``stale``)."""

_RECORDING = {
    "changed": "source_changed",
    "missing": "source_missing",
    "unreadable": "source_unreadable",
}
_PDF = {
    "changed": "artifact_changed",
    "missing": "artifact_missing",
    "unreadable": "artifact_unreadable",
}


@dataclass(frozen=True)
class SourceCheck:
    """``state``: current | stale | unbound | invalid, and the issues that say why.

    ``current``: the recording and every PDF have their recorded size and
    SHA-256. ``stale``: one of them was replaced, removed or cannot be read
    (codes in :data:`STALE_CODES`). ``unbound``: a manifest before v4 records
    no digest (``source_receipt_missing``): nothing can be re-checked; re-extract.
    ``invalid``: the document has no usable receipt to check against.
    """

    state: str
    issues: tuple[Issue, ...] = ()

    @property
    def current(self) -> bool:
        return self.state == CURRENT

    def to_dict(self) -> dict[str, Any]:
        return {"issues": render(self.issues), "state": self.state}


def file_state(path: Path, storage_root: Path, size: int, sha256: str) -> str | None:
    """None when ``path`` has ``size`` and ``sha256``, else changed / missing / unreadable."""
    problems = [issue.code for issue in descendant_issues(str(path), storage_root)]
    if problems == ["path_missing"]:
        return "missing"
    if problems:
        return "unreadable"
    try:
        if os.lstat(path).st_size != size:
            return "changed"
        digest = digest_file(path)
    except (OSError, VideoExtractionError):
        return "unreadable"
    return None if digest.size == size and digest.sha256 == sha256 else "changed"


def recording_issues(receipt: Mapping[str, Any], storage_root: Path) -> list[Issue]:
    """The recording of a (schema-valid) receipt, re-checked below ``storage_root``."""
    path = storage_root / receipt["vault_path"]
    state = file_state(path, storage_root, receipt["size_bytes"], receipt["sha256"])
    if state is None:
        return []
    return [
        Issue(
            _RECORDING[state],
            "$.source_receipt",
            f"the recording {receipt['vault_path']} is {state} since extraction: "
            "its slides are stale; re-extract from the recording you mean",
        )
    ]


def pdf_issue(state: str, where: str, path: str) -> Issue:
    return Issue(
        _PDF[state],
        where,
        f"the PDF {path} is {state} since extraction: re-extract (or restore it)",
    )


def _receipt_shape(document: Any) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]] | None:
    if not isinstance(document, Mapping):
        return None
    receipt = document.get("source_receipt")
    artifacts = document.get("artifacts")
    if not isinstance(receipt, Mapping) or not isinstance(artifacts, list):
        return None
    locator = receipt.get("vault_path")
    if not isinstance(locator, str) or path_text_issues("/" + locator):
        return None  # an escaping or malformed locator is never joined to the root
    if not isinstance(receipt.get("sha256"), str):
        return None
    if not isinstance(receipt.get("size_bytes"), int):
        return None
    for artifact in artifacts:
        if not isinstance(artifact, Mapping) or not all(
            isinstance(artifact.get(key), kind)
            for key, kind in (("path", str), ("sha256", str), ("size_bytes", int))
        ):
            return None
    return receipt, artifacts


def check_sources(document: Any, *, vault_root: str | Path) -> SourceCheck:
    """Re-check the recording and PDFs a manifest names against their recorded bytes.

    Light and read-only: no decoding, no PDF parsing, no schema validation
    (``validate_manifest`` does all of that and includes this check). A
    manifest before v4 is ``unbound``.
    """
    version = document.get("schema_version") if isinstance(document, Mapping) else None
    if isinstance(version, int) and not isinstance(version, bool) and version < 4:
        return SourceCheck(
            UNBOUND,
            (
                Issue(
                    "source_receipt_missing",
                    "$.source_receipt",
                    f"schema_version {version} records no digest of its recording: re-extract",
                ),
            ),
        )
    shape = _receipt_shape(document)
    if shape is None:
        return SourceCheck(
            INVALID,
            (Issue("source_receipt_invalid", "$.source_receipt", "no checkable source receipt"),),
        )
    receipt, artifacts = shape
    storage = Path(os.path.realpath(vault_root))
    issues = recording_issues(receipt, storage)
    for position, artifact in enumerate(artifacts):
        where = f"$.artifacts[{position}]"
        state = file_state(
            Path(artifact["path"]), storage, artifact["size_bytes"], artifact["sha256"]
        )
        if state is not None:
            issues.append(pdf_issue(state, where, artifact["path"]))
    return SourceCheck(STALE if issues else CURRENT, tuple(issues))
