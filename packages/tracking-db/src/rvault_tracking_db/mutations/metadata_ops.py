"""``apply_reviewed_metadata``: the narrow writer for approved catalog
corrections that ``scan-shownotes --apply`` refuses by design.

Only the fields below are writable. Metadata-only fields change the catalog
entry and nothing else. Analysis-invalidating fields change what a worker
would acquire or cite, so when such a field really changes on a talk that
already has an analysis, the talk moves to ``needs-reprocessing`` with a
machine-readable reason and a bumped ``reprocess_generation``. A talk under
an active queue claim is never edited.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.strict_json import json_equal
from rvault_contracts.suggest import closest, did_you_mean

from rvault_tracking_db.assessment.checks import DATE_RE
from rvault_tracking_db.assessment.model import child
from rvault_tracking_db.ids import is_youtube_id
from rvault_tracking_db.mutations.plan import Mutation, PlanRefusal, is_missing_marker
from rvault_tracking_db.mutations.reprocess import (
    invalidate_analysis,
)
from rvault_tracking_db.queue.batches import live_claim

METADATA_ONLY_FIELDS = ("title", "conference", "date")
ANALYSIS_INVALIDATING_FIELDS = (
    "video_url",
    "youtube_id",
    "slides_url",
    "google_drive_id",
    "pptx_path",
    "delivery_language",
)
WRITABLE_FIELDS = METADATA_ONLY_FIELDS + ANALYSIS_INVALIDATING_FIELDS
REPROCESS_REASON = "reviewed_metadata_invalidated_analysis"

# Fields a reviewer may clear with null; a title and a language are never unknown.
NON_NULLABLE_FIELDS = ("title", "delivery_language")


def _check_value(name: str, value: Any, path: str) -> None:
    if value is None and name not in NON_NULLABLE_FIELDS:
        return
    if not isinstance(value, str) or not value.strip():
        raise PlanRefusal("invalid_value", f"{name} must be a non-empty string", path)
    if name == "date" and not DATE_RE.fullmatch(value):
        raise PlanRefusal("invalid_value", "date must be YYYY-MM-DD", path)
    if name == "youtube_id" and not is_youtube_id(value):
        raise PlanRefusal("invalid_value", "youtube_id must be an 11-character YouTube id", path)


def _editable_talk(talks: list[Any], filename: str, mutation: Mutation) -> int:
    """The position of the named talk, refused when it is absent or under a live claim."""
    index = next(
        (i for i, t in enumerate(talks) if isinstance(t, dict) and t.get("filename") == filename),
        None,
    )
    if index is None:
        known = [t.get("filename") for t in talks if isinstance(t, dict)]
        raise PlanRefusal(
            "talk_not_found",
            f"no talk {filename!r}{did_you_mean(filename, known)}",
            child(mutation.path, "filename"),
            closest=closest(filename, known),
        )
    if live_claim(talks[index]) is not None:
        raise PlanRefusal(
            "active_queue_claim",
            f"{filename} is under an active queue claim",
            f'$["talks"][{index}]["_queue_claim"]',
        )
    return index


def _check_expectation(talk: dict[str, Any], name: str, expect: Any, cpath: str) -> None:
    """The field holds what the reviewer saw (or is absent, for the missing marker)."""
    exists = name in talk
    if is_missing_marker(expect):
        if exists:
            raise PlanRefusal("expectation_failed", f"{name} is present", child(cpath, "expect"))
    elif not exists or not json_equal(expect, talk[name]):
        raise PlanRefusal(
            "expectation_failed",
            f"{name} does not equal the expectation",
            child(cpath, "expect"),
        )


def _apply_field(
    talk: dict[str, Any], name: str, field_change: dict[str, Any], cpath: str
) -> dict[str, Any]:
    """Check and write one reviewed field on ``talk``; returns its receipt."""
    if name not in WRITABLE_FIELDS:
        raise PlanRefusal("field_not_writable", f"{name} is not a reviewed-metadata field", cpath)
    _check_value(name, field_change["value"], child(cpath, "value"))
    _check_expectation(talk, name, field_change["expect"], cpath)
    exists = name in talk
    before = talk.get(name)
    after = field_change["value"]
    talk[name] = after
    receipt: dict[str, Any] = {
        "field": name,
        "classification": (
            "metadata_only" if name in METADATA_ONLY_FIELDS else "analysis_invalidating"
        ),
        "before_exists": exists,
        "after": after,
        "changed": not exists or not json_equal(before, after),
    }
    if exists:
        receipt["before"] = before
    return receipt


def apply_reviewed(database: dict[str, Any], mutation: Mutation) -> dict[str, Any]:
    """Every reviewed field of one talk, then its analysis invalidated if one really moved."""
    body = mutation.body
    filename = body["filename"]
    talks = database.get("talks")
    if not isinstance(talks, list):
        raise PlanRefusal("missing_field", "the database has no talks array", '$["talks"]')
    index = _editable_talk(talks, filename, mutation)
    talk = dict(talks[index])
    fpath = child(mutation.path, "fields")
    receipts = [
        _apply_field(talk, name, field_change, child(fpath, name))
        for name, field_change in body["fields"].items()
    ]
    invalidated = [
        r["field"]
        for r in receipts
        if r["changed"] and r["classification"] == "analysis_invalidating"
    ]
    transition = invalidate_analysis(talk, invalidated, REPROCESS_REASON, f'$["talks"][{index}]')
    updated = list(talks)
    updated[index] = talk
    database["talks"] = updated
    return {
        "kind": mutation.kind,
        "filename": filename,
        "fields": receipts,
        "status_transition": transition,
        "changed": any(r["changed"] for r in receipts),
    }
