"""Stable refusal codes of the extractor.

Every bad input ends as one of these codes (exit 2 through
``rvault_contracts.cli.Refusal``), never as a traceback.
"""

from __future__ import annotations

INPUT_MISSING = "input_missing"
SYMLINK_REFUSED = "symlink_refused"
NOT_REGULAR_FILE = "not_regular_file"
INPUT_UNREADABLE = "input_unreadable"
INPUT_CHANGED = "input_changed"
WORKER_PROTOCOL = "worker_protocol_mismatch"
EMPTY_INPUT = "empty_input"
INPUT_TOO_LARGE = "input_too_large"
ENCRYPTED_PACKAGE = "encrypted_package"
NOT_A_ZIP = "not_a_zip"
TRUNCATED_ARCHIVE = "truncated_archive"
ARCHIVE_LIMIT_EXCEEDED = "archive_limit_exceeded"
UNSAFE_MEMBER_NAME = "unsafe_member_name"
AMBIGUOUS_PACKAGE = "ambiguous_package"
XML_DTD_REFUSED = "xml_dtd_refused"
STRUCTURAL_MEMBER_CORRUPT = "structural_member_corrupt"
NOT_A_PRESENTATION = "not_a_presentation"
PACKAGE_UNREADABLE = "package_unreadable"
WORKER_RESOURCE_LIMIT = "worker_resource_limit"
WORKER_TIMEOUT = "worker_timeout"
WORKER_FAILED = "worker_failed"
WORKER_MONITOR_UNAVAILABLE = "worker_monitor_unavailable"
