"""State-bound terminal skip reasons (spec: "Terminal skip reasons are state-bound too").

* ``skipped_no_sources`` needs an empty capability list;
* ``skipped_download_failed`` needs a remote video/slides acquisition path and
  no remaining verified local transcript, PPTX, PDF or video artifact (a stale
  local *declaration* does not block it: only verified capabilities count);
* ``skipped_duplicate`` needs ``source_relation.type: duplicate`` and a
  non-empty ``target_filename``.

The capability list is always the shared resolver's, so queueing and
persistence decide from the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rvault_tracking_db.capabilities import LOCAL_CAPABILITIES, REMOTE_CAPABILITIES

TERMINAL_SKIP_STATUSES = ("skipped_no_sources", "skipped_download_failed", "skipped_duplicate")


def terminal_skip_issues(
    status: str, talk: Mapping[str, Any], capabilities: Sequence[Mapping[str, Any]]
) -> list[dict[str, str]]:
    """Why ``status`` may not be recorded for ``talk`` (empty list: it may).

    Statuses that are not terminal skips are not this rule's business and
    yield no issue.
    """
    kinds = {c.get("capability") for c in capabilities}
    if status == "skipped_no_sources":
        if kinds:
            return [
                {
                    "code": "skip_contradicted_by_capabilities",
                    "path": "$.status",
                    "message": "skipped_no_sources requires an empty capability list",
                }
            ]
        return []
    if status == "skipped_download_failed":
        issues = []
        if not kinds & REMOTE_CAPABILITIES:
            issues.append(
                {
                    "code": "no_remote_acquisition_path",
                    "path": "$.status",
                    "message": "skipped_download_failed requires an active remote video/slides URL",
                }
            )
        if kinds & LOCAL_CAPABILITIES:
            issues.append(
                {
                    "code": "verified_local_artifact_remains",
                    "path": "$.status",
                    "message": "a verified local artifact remains; the talk can still be processed",
                }
            )
        return issues
    if status == "skipped_duplicate":
        relation = talk.get("source_relation")
        if (
            not isinstance(relation, Mapping)
            or relation.get("type") != "duplicate"
            or not isinstance(relation.get("target_filename"), str)
            or not relation["target_filename"].strip()
        ):
            return [
                {
                    "code": "duplicate_relation_missing",
                    "path": "$.source_relation",
                    "message": "skipped_duplicate needs a duplicate source_relation with a target",
                }
            ]
    return []
