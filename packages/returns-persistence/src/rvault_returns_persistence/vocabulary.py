"""Closed vocabularies shared by the catalog, the validator and the scaffold.

They come from the specification and its supplement; keeping them in one
module means the validator, the scaffold and the JSON Schemas in contracts/
cannot drift apart silently. The vocabularies the ``pattern-catalog-entry``
v1 contract already states (underlying sources, evidence channels,
dimensions, talk-metadata fields) are read from that schema; the others are
the source the contracts' ``tools/build_schemas.py`` generates the current
worker-return and report schemas from (``--check`` is run by the tests; the
historical versions are frozen JSON).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rvault_contracts.schemas import load_schema
from rvault_tracking_db.api import TERMINAL_SKIP_STATUSES

_CATALOG_ENTRY = load_schema("pattern-catalog-entry", 1)

EVIDENCE_SOURCES: tuple[str, ...] = tuple(_CATALOG_ENTRY["$defs"]["source"]["enum"])
COMPARISON = "source_comparison"
EVIDENCE_SOURCE_NAMES: tuple[str, ...] = (*EVIDENCE_SOURCES, COMPARISON)

CHANNELS: tuple[str, ...] = tuple(
    _CATALOG_ENTRY["properties"]["evidence_channels"]["items"]["enum"]
)

SOURCE_CHANNELS: dict[str, frozenset[str]] = {
    "transcript": frozenset({"transcript", "timed_transcript", "talk_metadata"}),
    "static_slides": frozenset({"slides", "slide_sequence", "talk_metadata"}),
    "native_deck": frozenset({"slides", "slide_sequence", "talk_metadata"}),
    "delivery_video": frozenset({"video", "talk_metadata"}),
}

# Channels that locate proof *from* a source (talk_metadata only supplements).
LOCATING_CHANNELS: dict[str, frozenset[str]] = {
    "transcript": frozenset({"transcript", "timed_transcript"}),
    "static_slides": frozenset({"slides", "slide_sequence"}),
    "native_deck": frozenset({"slides", "slide_sequence"}),
    "delivery_video": frozenset({"video"}),
}

CITATION_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # channel: (required, optional)
    "transcript": (frozenset({"source", "channel", "quote"}), frozenset({"translation"})),
    "timed_transcript": (frozenset({"source", "channel", "quote"}), frozenset({"translation"})),
    "slides": (frozenset({"source", "channel", "slide_numbers"}), frozenset()),
    "slide_sequence": (frozenset({"source", "channel", "slide_numbers"}), frozenset()),
    "video": (frozenset({"source", "channel", "start_seconds", "end_seconds"}), frozenset()),
    "talk_metadata": (frozenset({"source", "channel", "field"}), frozenset()),
}

# Canonical enrichment that only persistence may write.
ENGINE_CITATION_FIELDS = frozenset(
    {
        "line_start",
        "line_end",
        "artifact_root",
        "artifact_path",
        "artifact_sha256",
        "timing_artifact_path",
        "timing_artifact_sha256",
        "quality_artifact_path",
        "quality_artifact_sha256",
        "value",
        "owner_value_after_return",
    }
)

TALK_METADATA_FIELDS: tuple[str, ...] = tuple(_CATALOG_ENTRY["$defs"]["metadata_field"]["enum"])

INSPECTION_FIELDS: dict[str, frozenset[str]] = {
    "transcript": frozenset({"source", "line_ranges"}),
    "static_slides": frozenset({"source", "page_ranges"}),
    "native_deck": frozenset({"source", "page_ranges"}),
    "delivery_video": frozenset({"source", "time_ranges"}),
    COMPARISON: frozenset({"source", "evidence_sources_used", "comparison_scope"}),
}
RANGE_KEY: dict[str, str] = {
    "transcript": "line_ranges",
    "static_slides": "page_ranges",
    "native_deck": "page_ranges",
    "delivery_video": "time_ranges",
}
ENGINE_INSPECTION_FIELDS = frozenset(
    {
        "line_count",
        "page_count",
        "duration_seconds",
        "coverage_complete",
        "artifact_root",
        "artifact_path",
        "artifact_sha256",
        "artifact_identities",
        "absence_capability_complete",
        "absence_capability_reason",
        "timing_artifact_path",
        "timing_artifact_sha256",
        "quality_artifact_path",
        "quality_artifact_sha256",
    }
)

ENGINE_PATTERN_OBSERVATION_FIELDS = frozenset(
    {
        "evidence_schema_version",
        "pattern_outcomes",
        "opportunity_coverage_identity",
        "pattern_ids",
        "antipattern_ids",
        "not_evaluable_ids",
        "absence_capability_complete",
        "absence_capability_reason",
    }
)
ENGINE_RECORD_FIELDS = frozenset(
    {
        "evidence_schema_version",
        "required_source_groups",
        "available_source_groups",
        "capability_fact",
        "slide_count",
        "outcome",
        "absence_capability_complete",
        "absence_capability_reason",
    }
)

NOT_EVALUABLE_REASONS: tuple[str, ...] = (
    "missing_required_source_coverage",
    "absence_not_authorized_by_catalog",
    "missing_applicability_source_coverage",
    "source_gate_pending_owner_review",
)

DIMENSIONS: tuple[str, ...] = tuple(_CATALOG_ENTRY["$defs"]["dimension"]["enum"])

STATUSES_PROCESSED: tuple[str, ...] = ("processed", "processed_partial")
# A skipped return is one of the tracking-db owner's terminal skip states.
STATUSES_SKIPPED: tuple[str, ...] = TERMINAL_SKIP_STATUSES
STATUSES: tuple[str, ...] = (*STATUSES_PROCESSED, *STATUSES_SKIPPED)
SKIPPED_KEYS = frozenset({"filename", "return_schema_version", "queue_claim", "status"})
QUEUE_CLAIM_KEYS: tuple[str, ...] = ("run_id", "batch_id", "reprocess_generation")
# Blocks a processed return v2-v4 must carry; v5 adds catalog_feedback.
REQUIRED_PROCESSED: tuple[str, ...] = (
    "slide_source",
    "rhetoric_notes",
    "areas_for_improvement",
    "adherence_assessment",
    "new_patterns",
    "summary_updates",
    "structured_data",
    "verbatim_examples",
    "pattern_observations",
)


def required_processed(version: int) -> tuple[str, ...]:
    """The blocks a processed return of ``version`` (2-5) must carry."""
    return (*REQUIRED_PROCESSED, "catalog_feedback") if version == 5 else REQUIRED_PROCESSED


SLIDE_SOURCES: tuple[str, ...] = ("pptx", "pdf", "both", "video_extracted", "none")
TRANSCRIPT_SOURCES: tuple[str, ...] = ("youtube_auto", "whisper", "manual")
CONFIDENCES: tuple[str, ...] = ("strong", "moderate", "weak")

CONTENT_TYPES: tuple[str, ...] = (
    "title",
    "bio",
    "shownotes",
    "content_bullets",
    "data_chart",
    "quote",
    "meme_only",
    "meme_with_text",
    "section_divider",
    "progressive_reveal",
    "comparison_table",
    "hot_take",
    "cta",
    "thanks",
)
IMAGE_COMPOSITIONS: tuple[str, ...] = (
    "full_bleed",
    "full_bleed_with_text",
    "image_left_text_right",
    "image_right_text_left",
    "centered_image_with_title",
    "inset_image",
    "progressive_reveal",
    "screenshot",
    "meme_with_caption",
    "none",
)
LEDGER_ROW_KEYS: tuple[str, ...] = (
    "slide_number",
    "background_color_name",
    "content_type",
    "image_composition",
    "has_speech_bubble",
    "has_starburst",
    "has_footer",
)

# structured_data: declared scalars/lists (name -> kind) and registered snapshot objects.
STRUCTURED_SCALARS: dict[str, str] = {
    "delivery_language": "string",
    "co_presenter": "boolean",
    "co_presenters": "string_list",
    "slide_count": "count",
    "talk_duration_estimate": "string",
    "meme_count": "count",
    "image_only_slide_count": "count",
    "audience_interaction_count": "count",
    "opening_type": "string",
    "closing_type": "string",
    "narrative_arc_type": "string",
    "slide_design_style": "string",
    "illustration_style": "string",
    "illustration_coherence": "string",
    "image_source_distribution_basis": "string",
    "visual_continuity_devices": "string_list",
    "opening_sequence": "string_list",
    "closing_sequence": "string_list",
    "background_color_sequence": "string_list",
    "per_slide_visual": "ledger",
}
STRUCTURED_OBJECTS: tuple[str, ...] = (
    "image_source_distribution",
    "color_coded_backgrounds",
    "typography_observations",
    "footer_observations",
    "shape_observations",
    "video_extraction",
    "key_data_points",
    "named_authorities",
    "time_bound_promotion",
    "native_deck_audit",
    "native_timing_audit",
    "source_comparison",
    "source_identity",
    "animation_observations",
    "pptx_pdf_reconciliation",
    "extensions",
)

# Authored-slide structured evidence an untrusted video manifest cannot supply.
AUTHORED_SLIDE_FIELDS: tuple[str, ...] = (
    "slide_count",
    "per_slide_visual",
    "background_color_sequence",
    "color_coded_backgrounds",
    "typography_observations",
    "footer_observations",
    "shape_observations",
    "slide_design_style",
    "illustration_style",
    "illustration_coherence",
    "image_source_distribution",
    "image_source_distribution_basis",
    "image_only_slide_count",
    "meme_count",
    "visual_continuity_devices",
)

VERBATIM_LANES: tuple[str, ...] = (
    "signature_phrases",
    "jokes",
    "transitions",
    "audience_addresses",
    "opening_lines",
    "closing_lines",
)

FEEDBACK_LANES: tuple[str, ...] = (
    "unmatched_observations",
    "tensions",
    "definition_problems",
    "scoring_problems",
    "confusable_pairs",
)
DEFINITION_PROBLEMS: tuple[str, ...] = (
    "ambiguous",
    "undetectable",
    "unfalsifiable",
    "miscategorized",
    "overlapping",
)


CURRENT_RETURN_VERSION = 5
_NON_BLANK = "\\S"  # the pattern the schemas give a string that must not be blank


@cache
def _feedback_entries() -> dict[str, dict[str, Any]]:
    """Each catalog_feedback lane's entry schema in the current worker return (read once).

    The lanes' fields are the contract's, so they are read from it rather than
    restated here (``tools/build_schemas.py`` is where they are written).
    """
    lanes = load_schema("worker-return", CURRENT_RETURN_VERSION)["properties"]["catalog_feedback"]
    return {lane: body["items"] for lane, body in lanes["properties"].items()}


def feedback_fields(lane: str) -> frozenset[str]:
    """The fields a current ``lane`` entry has (closed: exactly these)."""
    return frozenset(_feedback_entries()[lane]["properties"])


def feedback_required(lane: str) -> tuple[str, ...]:
    """The fields a current ``lane`` entry requires, in the schema's order."""
    return tuple(_feedback_entries()[lane]["required"])


def feedback_text_fields(lane: str) -> frozenset[str]:
    """The fields of a ``lane`` entry that are non-blank text."""
    properties = _feedback_entries()[lane]["properties"]
    return frozenset(
        key
        for key, body in properties.items()
        if body.get("type") == "string" and body.get("pattern") == _NON_BLANK
    )


# Top-level scalars a return may delete through clear_fields.
CLEARABLE_TOP_LEVEL: tuple[str, ...] = (
    "rhetoric_notes",
    "areas_for_improvement",
    "adherence_assessment",
    "new_patterns",
    "summary_updates",
    "transcript_source",
    "transcript_path",
    "slide_source",
    "slides_local_path",
    "adherence_comparison",
)
CLEARABLE_ROOTS: tuple[str, ...] = ("structured_data", "verbatim_examples", "pattern_observations")
