"""Public reader of video manifests for other owners (light imports only).

Consumers (returns-persistence, tracking-db, the site) call
:func:`validate_manifest` or :func:`read_manifest` and act on
``ManifestReport.trusted``, never on an isolated artifact boolean; both
include the byte re-check of a v4 manifest (status ``stale``).
:func:`check_sources` is that re-check alone (recording and PDFs against
their recorded size and SHA-256; no schema, no PDF parsing) for a reader
that only needs to know whether the evidence is still the extracted bytes.
Nothing here imports OpenCV, NumPy, PyAV or yt-dlp; the PDF probe imports
pypdf only when it runs. The manifest validator, the byte re-check and the
PDF probe load on first use (PEP 562): a caller that only probes a slide PDF
(``rvault-returns validate`` counting its pages) does not import the
validator, and one that only asks where a manifest lives (``rvault-db
status`` of a talk with none on disk) imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rvault_contracts.lazy_exports import lazy_exports

from rvault_video_extraction.vault_paths import manifest_path, path_text_issues
from rvault_video_extraction.versioning import PIPELINE_VERSION, SCHEMA_VERSION

if TYPE_CHECKING:
    from rvault_video_extraction.freshness import STALE_CODES, SourceCheck, check_sources
    from rvault_video_extraction.manifest_validation import (
        ARTIFACT_ID,
        CURRENT_VERSION,
        ManifestReport,
        read_manifest,
        validate_manifest,
    )
    from rvault_video_extraction.pdf_probe import PdfProbe, PdfProbeError, probe_pdf

#: The names loaded on first use, and the module that defines each.
_LAZY = {
    "PdfProbe": "pdf_probe",
    "PdfProbeError": "pdf_probe",
    "probe_pdf": "pdf_probe",
    "STALE_CODES": "freshness",
    "SourceCheck": "freshness",
    "check_sources": "freshness",
    "ARTIFACT_ID": "manifest_validation",
    "CURRENT_VERSION": "manifest_validation",
    "ManifestReport": "manifest_validation",
    "read_manifest": "manifest_validation",
    "validate_manifest": "manifest_validation",
}

__all__ = [
    "ARTIFACT_ID",
    "CURRENT_VERSION",
    "PIPELINE_VERSION",
    "SCHEMA_VERSION",
    "STALE_CODES",
    "ManifestReport",
    "PdfProbe",
    "PdfProbeError",
    "SourceCheck",
    "check_sources",
    "manifest_path",
    "path_text_issues",
    "probe_pdf",
    "read_manifest",
    "validate_manifest",
]


__getattr__, __dir__ = lazy_exports("rvault_video_extraction", _LAZY, globals())
