"""Claimed artifacts: does each local file a talk names exist and read as its kind?

The capability resolver's own checker decides (a transcript decodes, a PDF
has its header and end-of-file marker, a deck is a presentation package),
through the same no-symlink open below the vault or deck root. A completed
talk (``processed``/``processed_partial``) whose claimed artifact is absent
or unreadable is blocking: its analysis cites evidence that is not there. A
talk still to be processed gets a warning, since acquisition has not run.
A registered slide PDF whose bytes changed since registration is the same
fault (``slides_local_identity``); a ``skipped_no_sources`` talk that does
have a source contradicts its own status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rvault_tracking_db.capabilities import SourceRoots, resolve
from rvault_tracking_db.preflight.findings import Findings, TalkRef
from rvault_tracking_db.preflight.pdfs import check_pdfs
from rvault_tracking_db.preflight.video import check_video
from rvault_tracking_db.slides_identity import check_slides

ARTIFACT_MISSING = "claimed_artifact_missing"
ARTIFACT_UNREADABLE = "claimed_artifact_unreadable"
SLIDES_CHANGED = "slides_pdf_changed"
REACHABILITY_CONFLICT = "status_source_reachability_conflict"
COMPLETED = frozenset({"processed", "processed_partial"})
_REMOTE_FIELDS = frozenset({"video_url", "slides_url"})


def check_artifacts(
    ref: TalkRef,
    talk: Mapping[str, Any],
    roots: SourceRoots,
    findings: Findings,
    probe: Callable[[str], str | None] | None = None,
    video_api: Any | None = None,
) -> None:
    completed = talk.get("status") in COMPLETED
    check_pdfs(ref, talk, roots, completed, findings, probe)
    check_video(ref, talk, Path(roots.vault_root), completed, findings, video_api)
    resolution = resolve(talk, roots)
    for finding in resolution.findings:
        if finding.field in _REMOTE_FIELDS:
            continue  # URLs: the identity and rejection checks own them
        missing = finding.code == "missing"
        _report(
            findings,
            completed,
            ARTIFACT_MISSING if missing else ARTIFACT_UNREADABLE,
            ref.path(finding.field),
            f"{finding.field} names an artifact that is "
            + ("absent" if missing else f"not readable as its kind ({finding.code})")
            + ("; the analysis cites it" if completed else "; not yet acquired or registered"),
            ref,
            expected="a readable artifact",
            actual={"reason_code": finding.code, "value": finding.value},
        )
    if check_slides(Path(roots.vault_root), talk) == "slides_stale":
        _report(
            findings,
            completed,
            SLIDES_CHANGED,
            ref.path("slides_local_identity"),
            "the registered slide PDF has other bytes than when it was registered",
            ref,
            expected=talk.get("slides_local_identity"),
            actual="other bytes",
        )
    if talk.get("status") == "skipped_no_sources" and resolution.capabilities:
        findings.block(
            REACHABILITY_CONFLICT,
            ref.path("status"),
            "the talk is skipped for having no sources, yet a source is reachable",
            ref,
            expected="pending",
            actual=[c["capability"] for c in resolution.capabilities],
        )


def _report(
    findings: Findings,
    completed: bool,
    code: str,
    path: str,
    message: str,
    ref: TalkRef,
    **values: Any,
) -> None:
    """Blocking for a completed talk (its analysis cites the artifact), else a warning."""
    if completed:
        findings.block(code, path, message, ref, **values)
    else:
        findings.warn(code, path, message, ref, **values)
