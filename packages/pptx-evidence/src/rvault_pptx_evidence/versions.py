"""The two version axes of the extraction record, single-sourced.

``SCHEMA_VERSION`` is the JSON field shape; ``PIPELINE_VERSION`` is the
extractor behavior. Both are read by the light ``api`` reader and by the
extractor, so they live in a module that imports nothing heavy.
"""

from __future__ import annotations

ARTIFACT_ID = "pptx-extraction"
SCHEMA_VERSION = 5
PIPELINE_VERSION = "1.6.0"
ARCHIVE_RECOVERY_SCHEMA_VERSION = 1
NATIVE_DECK_AUDIT_SCHEMA_VERSION = 2
WORKER_FAILURE_SCHEMA_VERSION = 1
RENDERED_PAGE_INSPECTION_SCHEMA_VERSION = 1
DIRECTORY_BATCH_SCHEMA_VERSION = 2
PDF_PROBE_SCHEMA_VERSION = 1
