"""Public reader of video manifests for other owners (light imports only).

Consumers (returns-persistence, tracking-db, the site) call
:func:`validate_manifest` or :func:`read_manifest` and act on
``ManifestReport.trusted``, never on an isolated artifact boolean; both
include the byte re-check of a v4 manifest (status ``stale``).
:func:`check_sources` is that re-check alone (recording and PDFs against
their recorded size and SHA-256; no schema, no PDF parsing) for a reader
that only needs to know whether the evidence is still the extracted bytes.
Nothing here imports OpenCV, NumPy, PyAV or yt-dlp; the PDF probe imports
pypdf only when it runs.
"""

from __future__ import annotations

from rvault_video_extraction.freshness import STALE_CODES, SourceCheck, check_sources
from rvault_video_extraction.manifest_validation import (
    ARTIFACT_ID,
    CURRENT_VERSION,
    ManifestReport,
    read_manifest,
    validate_manifest,
)
from rvault_video_extraction.pdf_probe import PdfProbe, PdfProbeError, probe_pdf
from rvault_video_extraction.vault_paths import manifest_path, path_text_issues
from rvault_video_extraction.versioning import PIPELINE_VERSION, SCHEMA_VERSION

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
