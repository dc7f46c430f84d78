"""Top-level rules: claim identity, status, required blocks, prose, provenance.

These decide whether a return may be applied to the talk at all, so they run
first; the deeper evidence rules only make sense for a processed return of a
known version. The rules here are the current (v5) ones and the ones every
version shares; what older versions did differently is in ``legacy``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_text
from rvault_contracts.strict_json import json_path as child

from rvault_returns_persistence.context import ReturnContext
from rvault_returns_persistence.vocabulary import (
    CLEARABLE_ROOTS,
    CLEARABLE_TOP_LEVEL,
    QUEUE_CLAIM_KEYS,
    SKIPPED_KEYS,
    SLIDE_SOURCES,
    TRANSCRIPT_SOURCES,
    required_processed,
)

CURRENT_VERSION = 5

TOP_LEVEL_KEYS = frozenset(
    {
        "filename",
        "return_schema_version",
        "queue_claim",
        "status",
        "slide_source",
        "slides_local_path",
        "clear_fields",
        "rhetoric_notes",
        "areas_for_improvement",
        "transcript_source",
        "transcript_path",
        "structured_data",
        "verbatim_examples",
        "adherence_assessment",
        "adherence_comparison",
        "new_patterns",
        "summary_updates",
        "pattern_observations",
        "catalog_feedback",
        "processed_date",
    }
)
SLIDES_PATH = re.compile(r"^slides/[^/\\\x00]+\.pdf$")
DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLEAR_PATH = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")


def check_queue_claim(ctx: ReturnContext) -> None:
    """The return names its claim (v2 on), and that claim is the talk's active one."""
    if "queue_claim" not in ctx.ret:
        ctx.add("missing_required_block", child(ctx.path, "queue_claim"), "queue_claim is required")
        return
    check_claim_identity(ctx)


def check_claim_identity(ctx: ReturnContext) -> None:
    """A supplied claim identity must be the talk's active claim, generation included."""
    path = child(ctx.path, "queue_claim")
    claim = ctx.claim
    supplied = ctx.ret.get("queue_claim")
    if "queue_claim" not in ctx.ret:
        return
    if not isinstance(supplied, dict):
        ctx.add("wrong_type", path, "queue_claim must be an object")
        return
    for key in sorted(set(supplied) - set(QUEUE_CLAIM_KEYS)):
        ctx.add("unknown_field", child(path, key), f"queue_claim does not carry {key!r}")
    if claim is None:
        return
    for key in ("run_id", "batch_id"):
        if supplied.get(key) != claim.get(key):
            ctx.add(
                "queue_claim_mismatch",
                child(path, key),
                f"{key} must be copied exactly from the active claim",
            )
    generation = supplied.get("reprocess_generation")
    if not is_int(generation) or generation != claim.get("reprocess_generation"):
        ctx.add(
            "queue_generation_mismatch",
            child(path, "reprocess_generation"),
            "reprocess_generation must equal the talk's active claim generation",
        )


def check_skipped(ctx: ReturnContext) -> None:
    for key in sorted(set(ctx.ret) - SKIPPED_KEYS):
        ctx.add(
            "skipped_extra_field",
            child(ctx.path, key),
            "a skipped return carries only filename, return_schema_version, queue_claim and status",
        )


def check_required(ctx: ReturnContext) -> None:
    """The current blocks of a processed return, and no field the contract does not name."""
    check_required_blocks(ctx, required_processed(CURRENT_VERSION))


def check_required_blocks(ctx: ReturnContext, blocks: tuple[str, ...]) -> None:
    """Each of ``blocks`` is present, and no field the contract does not name."""
    for key in blocks:
        if key not in ctx.ret:
            ctx.add(
                "missing_required_block",
                child(ctx.path, key),
                f"{key} is required on a processed return",
            )
    for key in sorted(set(ctx.ret) - TOP_LEVEL_KEYS):
        ctx.add("unknown_field", child(ctx.path, key), f"{key!r} is not a return field")


def check_substantive_prose(ctx: ReturnContext) -> None:
    """The two analysis prose blocks say something (v2 on)."""
    for key in ("rhetoric_notes", "areas_for_improvement"):
        if key in ctx.ret and not is_text(ctx.ret[key]):
            ctx.add(
                "prose_not_substantive",
                child(ctx.path, key),
                f"{key} must contain substantive analysis",
            )


def check_text_blocks(ctx: ReturnContext) -> None:
    """new_patterns and summary_updates are strings, empty when there is nothing to say."""
    for key in ("new_patterns", "summary_updates"):
        if key in ctx.ret and not isinstance(ctx.ret[key], str):
            ctx.add("wrong_type", child(ctx.path, key), f"{key} must be a string ('' when none)")


def check_adherence(ctx: ReturnContext) -> None:
    """A current return assesses no adherence: the owner compares after persistence."""
    ret = ctx.ret
    if "adherence_assessment" in ret and ret["adherence_assessment"] != "":
        ctx.add(
            "adherence_assessment_not_empty",
            child(ctx.path, "adherence_assessment"),
            'return v5 carries adherence_assessment exactly ""',
        )
    if "adherence_comparison" in ret:
        ctx.add(
            "adherence_comparison_forbidden",
            child(ctx.path, "adherence_comparison"),
            "return v5 omits adherence_comparison; only an "
            "owner-side consumer compares after persistence",
        )


def check_provenance(ctx: ReturnContext) -> None:
    """Where the transcript and slides came from, in the closed vocabularies."""
    ret = ctx.ret
    if "transcript_source" in ret:
        value = ret["transcript_source"]
        path = child(ctx.path, "transcript_source")
        if value is None:
            ctx.add(
                "transcript_source_null",
                path,
                "omit transcript_source when provenance is unknown; never null",
            )
        elif value not in TRANSCRIPT_SOURCES:
            ctx.add(
                "transcript_source_unknown",
                path,
                f"transcript_source must be one of {list(TRANSCRIPT_SOURCES)}",
            )
    if "transcript_path" in ret:
        registered = ctx.talk.get("transcript_path")
        if ret["transcript_path"] != registered or not isinstance(registered, str):
            ctx.add(
                "transcript_path_not_registered",
                child(ctx.path, "transcript_path"),
                "transcript_path may only repeat the talk's pre-registered transcript_path exactly",
            )
    if "slide_source" in ret and ret["slide_source"] not in SLIDE_SOURCES:
        ctx.add(
            "slide_source_unknown",
            child(ctx.path, "slide_source"),
            f"slide_source must be one of {list(SLIDE_SOURCES)}",
        )
    if "slides_local_path" in ret:
        value = ret["slides_local_path"]
        if not isinstance(value, str) or not SLIDES_PATH.fullmatch(value):
            ctx.add(
                "slides_local_path_invalid",
                child(ctx.path, "slides_local_path"),
                "slides_local_path has the form slides/<artifact>.pdf",
            )
    if "processed_date" in ret:
        check_processed_date(ctx, ret["processed_date"])


def check_transcript_only_partial(ctx: ReturnContext) -> None:
    """A current return without slides is a partial analysis."""
    if ctx.ret.get("slide_source") == "none" and ctx.status == "processed":
        ctx.add(
            "slide_source_none_requires_partial",
            child(ctx.path, "status"),
            "slide_source none is a transcript-only analysis: its status is processed_partial",
        )


def check_processed_date(ctx: ReturnContext, value: Any) -> None:
    """Date-only values are advisory; a timestamp is an assertion and must carry a timezone."""
    path = child(ctx.path, "processed_date")
    if not isinstance(value, str):
        ctx.add(
            "processed_date_invalid",
            path,
            "processed_date, when present, is a date or timestamp string",
        )
        return
    if DATE_ONLY.fullmatch(value):
        try:
            datetime.strptime(value, "%Y-%m-%d")
        except ValueError:
            ctx.add("processed_date_invalid", path, "processed_date is not a calendar date")
        return
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        ctx.add(
            "processed_date_invalid",
            path,
            "processed_date is neither YYYY-MM-DD nor an ISO-8601 timestamp",
        )
        return
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        ctx.add(
            "processed_date_not_timezone_aware", path, "a return timestamp must be timezone-aware"
        )


def check_clear_fields(ctx: ReturnContext) -> None:
    if "clear_fields" not in ctx.ret:
        return
    path = child(ctx.path, "clear_fields")
    value = ctx.ret["clear_fields"]
    if not isinstance(value, list):
        ctx.add("wrong_type", path, "clear_fields must be an array of dotted paths")
        return
    seen: set[str] = set()
    for index, item in enumerate(value):
        item_path = child(path, index)
        if not isinstance(item, str) or not CLEAR_PATH.fullmatch(item):
            ctx.add(
                "clear_field_invalid", item_path, "each clear_fields entry is a dotted field path"
            )
            continue
        if item in seen:
            ctx.add("duplicate_entry", item_path, f"{item!r} is listed twice")
        seen.add(item)
        head, _, rest = item.partition(".")
        owned = (not rest and head in CLEARABLE_TOP_LEVEL) or (
            bool(rest) and head in CLEARABLE_ROOTS
        )
        if not owned:
            ctx.add(
                "clear_field_not_analysis_owned",
                item_path,
                f"{item!r} is not an analysis-owned path (queue identity, "
                "sources, catalog metadata and the record are not clearable)",
            )
