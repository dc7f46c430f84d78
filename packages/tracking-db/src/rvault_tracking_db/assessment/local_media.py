"""A talk's ``local_media`` record: its version is structure, its contents per-talk evidence.

db-talk v5 constrains only the record's version (an unsupported one is
refused like every other embedded generation); the fields are the
``db-local-media`` v1/v2 contract, validated here through ``rvault_contracts``.
A record that breaks it is evidence trouble of that one talk
(``local_media_invalid``, a warning at the offending member's JSON path):
its digest is then unknown to every reader (``talk_media.talk_local_media``),
status shows the talk needs its recording attached again, and the rest of the
vault reads, claims and persists.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import WARNING, Collector

from rvault_tracking_db.assessment import checks
from rvault_tracking_db.assessment.model import child

LOCAL_MEDIA_ARTIFACT = "db-local-media"
LOCAL_MEDIA_VERSIONS = (1, 2)  # v2 adds streams; a v1 record still reads
LOCAL_MEDIA_INVALID = "local_media_invalid"


def assess_local_media(talk: dict[str, Any], path: str, issues: Collector) -> None:
    if "local_media" not in talk:
        return
    media = talk["local_media"]
    mpath = child(path, "local_media")
    if not checks.require_object(media, mpath, issues, "local_media"):
        return
    version = checks.version_of(
        media, mpath, LOCAL_MEDIA_VERSIONS, issues, missing=None, what="local_media"
    )
    if version is None:
        return
    from rvault_contracts.schemas import schema_issues

    for issue in schema_issues(LOCAL_MEDIA_ARTIFACT, version, media)[:5]:
        issues.add(
            LOCAL_MEDIA_INVALID,
            mpath + issue.path[1:],
            f"local_media breaks {LOCAL_MEDIA_ARTIFACT} v{version} ({issue.validator}): "
            f"{issue.message}; attach the recording again (rvault-db attach-media)",
            severity=WARNING,
            validator=issue.validator,
        )
