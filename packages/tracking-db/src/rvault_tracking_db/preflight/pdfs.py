"""PDF integrity beyond the envelope: the video owner's bounded PDF probe.

The capability checker only sees a PDF header and an end-of-file marker; a
file with both can still have no readable page tree. Every declared local
PDF that passed that checker is opened once more through
``rvault_video_extraction.api.probe_pdf`` (bounded size and page count, one
no-follow read of one file generation, pypdf's page tree). A PDF it refuses
is the same fault as an absent one: blocking for a completed talk, a warning
for one still to be processed. Without video-extraction installed the check
is not made and says so once per talk as a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rvault_tracking_db.capabilities import (
    LEGACY_PDF_FIELDS,
    LOCAL_PDF,
    ROOT_VAULT,
    SourceRoots,
    check_local,
)
from rvault_tracking_db.preflight.findings import Findings, TalkRef

PDF_INVALID = "claimed_pdf_invalid"
PROBE_UNAVAILABLE = "pdf_probe_unavailable"


def pdf_prober() -> Callable[[str], str | None] | None:
    """``path -> None`` (the PDF reads) or the probe's refusal code; None if not installed."""
    try:
        from rvault_video_extraction.api import PdfProbeError, probe_pdf
    except ModuleNotFoundError:
        return None

    def probe(path: str) -> str | None:
        try:
            probe_pdf(path)
        except PdfProbeError as exc:
            return exc.code
        return None

    return probe


def check_pdfs(
    ref: TalkRef,
    talk: Mapping[str, Any],
    roots: SourceRoots,
    completed: bool,
    findings: Findings,
    probe: Callable[[str], str | None] | None,
) -> None:
    for name in LEGACY_PDF_FIELDS:
        value = talk.get(name)
        if not isinstance(value, str) or check_local(roots, LOCAL_PDF, ROOT_VAULT, value):
            continue  # absent or failing the checker: the artifact check reports it
        if probe is None:
            findings.warn(
                PROBE_UNAVAILABLE,
                ref.path(name),
                "rvault-video-extraction is not installed: the PDF's pages are unchecked",
                ref,
            )
            return
        code = probe(str(Path(roots.vault_root) / value))
        if code is None:
            continue
        message = f"{name} fails the bounded PDF probe ({code})"
        values = {"expected": "a PDF whose page tree reads", "actual": {"reason_code": code}}
        if completed:
            findings.block(PDF_INVALID, ref.path(name), message, ref, **values)
        else:
            findings.warn(PDF_INVALID, ref.path(name), message, ref, **values)
