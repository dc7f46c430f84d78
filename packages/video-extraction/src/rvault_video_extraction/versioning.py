"""Version constants and defaults of the extraction pipeline and its manifest.

``SCHEMA_VERSION`` is the manifest's field shape (spec: "Video Extraction
Output Schema"); ``PIPELINE_VERSION`` is the extraction behaviour, mirrored in
the PDF producer/creator metadata. They move independently: a change to
sampling, dedupe or cropping bumps the pipeline version only.
"""

from __future__ import annotations

SCHEMA_VERSION = 4
PIPELINE_VERSION = "1.2.0"
PDF_PRODUCER = f"rvault-video-extraction pipeline {PIPELINE_VERSION}"

# Sampling defaults, shared by the CLI (which must not import cv2 to parse
# arguments) and ExtractRequest.
DEFAULT_FPS = 0.5
DEFAULT_HASH_THRESHOLD = 8
# --fps bounds: below MIN_FPS (one sample per 50 s) a run keeps almost nothing of a
# talk and would still replace a good manifest; above MAX_FPS no talk video has the
# frames (sub-samples need twice the rate).
MIN_FPS = 0.02
MAX_FPS = 30.0
