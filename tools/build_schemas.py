"""The contracts' generator of the current returns-persistence schema versions.

worker-return v5, returns-validation-report v1, pattern-observations v2 and
returns-persistence-report v2 are contracts in ``contracts/``; they are
generated from the same closed vocabularies the validator uses
(``rvault_returns_persistence.vocabulary``) so the two cannot drift, and
each carries a ``$comment`` saying so (``rvault_contracts.schemas.GENERATED_MARK``).
The historical versions (worker-return v1-v4, returns-persistence-report v1)
are frozen: committed JSON nobody regenerates, so a change to today's
vocabulary can never rewrite what an old return was validated against.

``.venv/bin/python tools/build_schemas.py`` rewrites the current files;
``--check`` exits 1 when a committed one differs (``tools/tests/test_build_schemas.py``
and the returns-persistence suite run that).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_contracts.schemas import mark_generated
from rvault_returns_persistence import vocabulary as v

SCHEMAS = Path(__file__).resolve().parents[1] / "contracts" / "src" / "rvault_contracts" / "schemas"
#: What every generated file's ``$comment`` names as its source.
GENERATOR = "tools/build_schemas.py"
TEXT = {"pattern": "\\S", "type": "string"}
ID = {"minLength": 1, "type": "string"}
STR_LIST = {"items": {"type": "string"}, "type": "array"}
COUNT = {"minimum": 0, "type": "integer"}

# What belongs in each field of a v5 return: the schema's ``description``, which
# ``rvault-returns scaffold`` prints beside the skeleton it pre-fills.
MEANINGS_V5: dict[str, str] = {
    "filename": "The talk's filename in the tracking database; the scaffold copies it.",
    "return_schema_version": "5: the worker-return contract this return follows.",
    "queue_claim": "The talk's active claim (run_id, batch_id, reprocess_generation), copied "
    "exactly from the scaffold: it binds the return to that claim.",
    "status": "processed (every available source analysed), processed_partial (a source "
    "missing, e.g. transcript only), or a skipped_* status, which carries only filename, "
    "return_schema_version, queue_claim and status.",
    "slide_source": "Which slides the analysis used: pptx, pdf, both, video_extracted or none "
    "(the scaffold derives it from the slides on disk).",
    "slides_local_path": "The vault-relative slides/NAME.pdf the analysis used.",
    "clear_fields": "Talk fields this return deliberately empties (dotted names).",
    "rhetoric_notes": "Prose: how the talk works rhetorically, as observed in the inspected "
    "sources (the analysis page's main notes). Must not be blank.",
    "areas_for_improvement": "Prose: what the speaker could do better, grounded in what was "
    "observed. Must not be blank.",
    "transcript_source": "Where the transcript came from (youtube_auto, whisper, manual); the "
    "scaffold copies the talk record's.",
    "transcript_path": "The vault-relative transcript the analysis read.",
    "structured_data": "Facts measured from the sources (slide count, opening and closing "
    "type, ...): registered fields only; experiments go under extensions.",
    "verbatim_examples": "Exact source-language quotes by lane: opening_lines, closing_lines, "
    "transitions, jokes, signature_phrases, audience_addresses.",
    "adherence_assessment": "Leave empty: persistence computes adherence from the baseline.",
    "new_patterns": "Prose: recurring techniques the pattern catalog does not name yet.",
    "summary_updates": "Prose: what this talk changes in the speaker's overall summary.",
    "pattern_observations": "The catalog verdicts: what was inspected, detected, assessed or "
    "not evaluable, and the score.",
    "processed_date": "Leave out: persistence stamps the batch date.",
    "catalog_feedback": "Feedback on the catalog itself, by lane; empty lanes are fine.",
    "evidence_sources": "The sources the observations rest on; each must be inspected.",
    "source_inspection": "Per source, the ranges actually inspected (transcript lines, pages, "
    "seconds); complete ranges are what lets an absence count.",
    "patterns_detected": "Catalog patterns observed, each with exact evidence citations "
    "(quotes that occur once, pages, times).",
    "antipatterns_detected": "Catalog antipatterns observed, with evidence citations.",
    "applicability_assessments": "For each conditional pattern whose applicability sources "
    "were inspected: whether it applies here, with evidence.",
    "not_evaluable": "Catalog entries the inspected sources cannot evaluate, each with the "
    "reason_code the validator expects; the scaffold pre-fills them from the sources.",
    "pattern_score": "patterns_used = len(patterns_detected), antipatterns_detected = "
    "len(antipatterns_detected), score = their difference.",
}


def _described(props: dict[str, Any]) -> dict[str, Any]:
    """``props`` with each meaning as its ``description`` (v5 only; older files are frozen)."""
    return {
        name: {**schema, "description": MEANINGS_V5[name]} if name in MEANINGS_V5 else schema
        for name, schema in props.items()
    }


def _closed(
    props: dict[str, Any], required: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"additionalProperties": False, "properties": props, "type": "object"}
    if required:
        out["required"] = sorted(required)
    out.update(extra)
    return out


def _range(timed: bool) -> dict[str, Any]:
    bound = {"minimum": 0, "type": "number"} if timed else {"minimum": 1, "type": "integer"}
    return {
        "items": {"items": bound, "maxItems": 2, "minItems": 2, "type": "array"},
        "minItems": 1,
        "type": "array",
    }


def _citation() -> dict[str, Any]:
    quote = {"pattern": "\\S+\\s+\\S+\\s+\\S+\\s+\\S+", "type": "string"}
    slides = {
        "items": {"minimum": 1, "type": "integer"},
        "minItems": 1,
        "type": "array",
        "uniqueItems": True,
    }
    shapes = []
    for channel in v.CHANNELS:
        sources = sorted(s for s, chans in v.SOURCE_CHANNELS.items() if channel in chans)
        props: dict[str, Any] = {"channel": {"const": channel}, "source": {"enum": sources}}
        required = ["source", "channel"]
        if channel in ("transcript", "timed_transcript"):
            props.update(quote=quote, translation={"type": "string"})
            required.append("quote")
        elif channel in ("slides", "slide_sequence"):
            props["slide_numbers"] = (
                {**slides, "minItems": 2} if channel == "slide_sequence" else slides
            )
            required.append("slide_numbers")
        elif channel == "video":
            props.update(
                start_seconds={"minimum": 0, "type": "number"},
                end_seconds={"minimum": 0, "type": "number"},
            )
            required += ["start_seconds", "end_seconds"]
        else:
            props["field"] = {"enum": list(v.TALK_METADATA_FIELDS)}
            required.append("field")
        shapes.append(
            {
                "if": {"properties": {"channel": {"const": channel}}},
                "then": _closed(props, required),
            }
        )
    # if/then on the channel discriminator: one shape is evaluated per citation, and an
    # error names the failing field of that shape instead of "not valid under any of".
    return {
        "allOf": shapes,
        "properties": {"channel": {"enum": list(v.CHANNELS)}},
        "required": ["channel", "source"],
        "type": "object",
    }


def _comparison_rule() -> list[dict[str, Any]]:
    return [
        {
            "if": {
                "properties": {"evidence_source": {"const": v.COMPARISON}},
                "required": ["evidence_source"],
            },
            "then": {"required": ["evidence_sources_used"]},
            "else": {"not": {"required": ["evidence_sources_used"]}},
        }
    ]


def _sources_used() -> dict[str, Any]:
    return {
        "items": {"enum": list(v.EVIDENCE_SOURCES)},
        "minItems": 2,
        "type": "array",
        "uniqueItems": True,
    }


def _sourced() -> dict[str, Any]:
    """The evidence fields a detection and an applicability assessment share."""
    return {
        "evidence": TEXT,
        "evidence_citations": {
            "items": {"$ref": "#/$defs/citation"},
            "minItems": 1,
            "type": "array",
        },
        "evidence_source": {"enum": list(v.EVIDENCE_SOURCE_NAMES)},
        "evidence_sources_used": _sources_used(),
        "pattern_id": ID,
    }


def _detection() -> dict[str, Any]:
    props = {
        "confidence": {"enum": list(v.CONFIDENCES)},
        "dimensions": {"items": {"enum": list(v.DIMENSIONS)}, "type": "array"},
        **_sourced(),
    }
    return _closed(
        props,
        ["pattern_id", "confidence", "evidence_source", "evidence", "evidence_citations"],
        allOf=_comparison_rule(),
    )


def _assessment() -> dict[str, Any]:
    props = {
        "condition_id": ID,
        **_sourced(),
        "result": {"enum": ["applicable", "not_applicable"]},
    }
    rules = [
        *_comparison_rule(),
        {
            "if": {"properties": {"result": {"const": "not_applicable"}}, "required": ["result"]},
            "then": {"required": ["condition_id"]},
            "else": {"not": {"required": ["condition_id"]}},
        },
    ]
    return _closed(
        props,
        ["pattern_id", "result", "evidence_source", "evidence", "evidence_citations"],
        allOf=rules,
    )


def _inspection_record() -> dict[str, Any]:
    shapes = []
    for source in v.EVIDENCE_SOURCES:
        key = v.RANGE_KEY[source]
        shapes.append(
            {
                "if": {"properties": {"source": {"const": source}}},
                "then": _closed(
                    {"source": {"const": source}, key: _range(source == "delivery_video")},
                    ["source", key],
                ),
            }
        )
    shapes.append(
        {
            "if": {"properties": {"source": {"const": v.COMPARISON}}},
            "then": _closed(
                {
                    "comparison_scope": {"enum": ["full", "partial"]},
                    "evidence_sources_used": _sources_used(),
                    "source": {"const": v.COMPARISON},
                },
                ["source", "evidence_sources_used", "comparison_scope"],
            ),
        }
    )
    return {
        "allOf": shapes,
        "properties": {"source": {"enum": list(v.EVIDENCE_SOURCE_NAMES)}},
        "required": ["source"],
        "type": "object",
    }


def _structured() -> dict[str, Any]:
    kinds = {
        "string": {"type": "string"},
        "boolean": {"type": "boolean"},
        "count": COUNT,
        "string_list": STR_LIST,
    }
    props: dict[str, Any] = {}
    for name, kind in v.STRUCTURED_SCALARS.items():
        if kind == "ledger":
            row = _closed(
                {
                    "background_color_name": TEXT,
                    "content_type": {"enum": list(v.CONTENT_TYPES)},
                    "has_footer": {"type": "boolean"},
                    "has_speech_bubble": {"type": "boolean"},
                    "has_starburst": {"type": "boolean"},
                    "image_composition": {"enum": list(v.IMAGE_COMPOSITIONS)},
                    "slide_number": {"minimum": 1, "type": "integer"},
                },
                list(v.LEDGER_ROW_KEYS),
            )
            props[name] = {"items": row, "type": "array"}
        else:
            props[name] = kinds[kind]
    for name in v.STRUCTURED_OBJECTS:
        props[name] = {"type": "object"}
    props["image_source_distribution"] = {
        "additionalProperties": COUNT,
        "propertyNames": {"pattern": "\\S"},
        "type": "object",
    }
    props["image_source_distribution_basis"] = TEXT
    out = _closed(props)
    out["dependentRequired"] = {
        "image_source_distribution": ["image_source_distribution_basis"],
        "image_source_distribution_basis": ["image_source_distribution"],
        "per_slide_visual": ["slide_count"],
    }
    out["description"] = (
        "Registered snapshot fields only; additive experiments live under extensions."
    )
    return out


def _feedback() -> dict[str, Any]:
    pair = {"items": ID, "minItems": 2, "type": "array", "uniqueItems": True}
    lanes = {
        "confusable_pairs": _closed(
            {"detail": TEXT, "pattern_ids": {**pair, "maxItems": 2}}, ["pattern_ids", "detail"]
        ),
        "definition_problems": _closed(
            {"detail": TEXT, "pattern_id": ID, "problem": {"enum": list(v.DEFINITION_PROBLEMS)}},
            ["pattern_id", "problem", "detail"],
        ),
        "scoring_problems": _closed({"detail": TEXT, "issue": TEXT}, ["issue", "detail"]),
        "tensions": _closed(
            {"evidence": TEXT, "nature": TEXT, "pattern_ids": pair},
            ["pattern_ids", "nature", "evidence"],
        ),
        "unmatched_observations": _closed(
            {
                "observation": TEXT,
                "proposed_name": TEXT,
                "proposed_polarity": {"enum": ["pattern", "antipattern"]},
                "why_no_pattern_fits": TEXT,
            },
            ["observation", "why_no_pattern_fits", "proposed_name", "proposed_polarity"],
        ),
    }
    return _closed(
        {k: {"items": s, "type": "array"} for k, s in lanes.items()}, list(v.FEEDBACK_LANES)
    )


def _pattern_observations() -> dict[str, Any]:
    reasons = list(v.NOT_EVALUABLE_REASONS)
    score = _closed(
        {"antipatterns_detected": COUNT, "patterns_used": COUNT, "score": {"type": "integer"}},
        ["patterns_used", "antipatterns_detected", "score"],
    )
    props: dict[str, Any] = {
        "antipatterns_detected": {"items": {"$ref": "#/$defs/detection"}, "type": "array"},
        "evidence_sources": {
            "items": {"enum": list(v.EVIDENCE_SOURCE_NAMES)},
            "type": "array",
            "uniqueItems": True,
        },
        "not_evaluable": {
            "items": _closed(
                {"pattern_id": ID, "reason_code": {"enum": reasons}}, ["pattern_id", "reason_code"]
            ),
            "type": "array",
        },
        "pattern_score": score,
        "patterns_detected": {"items": {"$ref": "#/$defs/detection"}, "type": "array"},
    }
    props["source_inspection"] = {"items": _inspection_record(), "minItems": 1, "type": "array"}
    props["applicability_assessments"] = {"items": _assessment(), "type": "array"}
    props = _described(props)
    return _closed(props, list(props))


def worker_return() -> dict[str, Any]:
    """worker-return v5, the current version (v1-v4 are frozen JSON)."""
    version = 5
    top: dict[str, Any] = {
        "filename": {"minLength": 1, "pattern": "\\.md$", "type": "string"},
        "return_schema_version": {"const": version},
        "queue_claim": _closed(
            {
                "batch_id": {"type": "string"},
                "reprocess_generation": {"minimum": 0, "type": "integer"},
                "run_id": {"type": "string"},
            },
            list(v.QUEUE_CLAIM_KEYS),
        ),
        "status": {"enum": list(v.STATUSES)},
        "slide_source": {"enum": list(v.SLIDE_SOURCES)},
        "slides_local_path": {"pattern": "^slides/[^/\\\\]+\\.pdf$", "type": "string"},
        "clear_fields": {
            "items": {"pattern": "^[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*$", "type": "string"},
            "type": "array",
            "uniqueItems": True,
        },
        "rhetoric_notes": TEXT,
        "areas_for_improvement": TEXT,
        "transcript_source": {"enum": list(v.TRANSCRIPT_SOURCES)},
        "transcript_path": {"type": "string"},
        "structured_data": _structured(),
        "verbatim_examples": _closed({lane: STR_LIST for lane in v.VERBATIM_LANES}),
        "adherence_assessment": {"const": ""},
        "new_patterns": {"type": "string"},
        "summary_updates": {"type": "string"},
        "pattern_observations": _pattern_observations(),
        "processed_date": {"type": "string"},
    }
    top["catalog_feedback"] = _feedback()
    top = _described(top)
    schema: dict[str, Any] = {
        "$id": f"urn:rvault:worker-return:v{version}",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"citation": _citation(), "detection": _detection()},
        "description": (
            f"Worker return v{version}. Current: fresh claim-v5 work. "
            "Cross-field rules (claim binding, catalog gates, artifact "
            "bounds) are enforced by rvault-returns validate."
        ),
        "required": ["filename", "return_schema_version", "queue_claim", "status"],
        "type": "object",
        "properties": top,
        "additionalProperties": False,
        "allOf": [
            {
                "if": {
                    "properties": {"status": {"enum": list(v.STATUSES_SKIPPED)}},
                    "required": ["status"],
                },
                "then": {"propertyNames": {"enum": sorted(v.SKIPPED_KEYS)}},
                "else": {"required": sorted(v.required_processed(version))},
            }
        ],
    }
    return schema


def _report_issue() -> dict[str, Any]:
    return _closed(
        {
            "code": {"pattern": "^[a-z][a-z0-9_]*$", "type": "string"},
            "message": {"minLength": 1, "type": "string"},
            "path": {"type": "string"},
        },
        ["code", "message", "path"],
    )


def _report_generation() -> dict[str, Any]:
    """A pattern-scoring generation: current / not_applicable, or legacy with reasons."""
    reasons_empty = {"maxItems": 0, "type": "array"}
    reasons_legacy = {
        "items": {"type": "string"},
        "minItems": 1,
        "type": "array",
        "uniqueItems": True,
    }
    return {
        "oneOf": [
            {"properties": {"reasons": reasons_empty, "status": {"const": "current"}}},
            {"properties": {"reasons": reasons_empty, "status": {"const": "not_applicable"}}},
            {
                "properties": {
                    "reasons": reasons_legacy,
                    "status": {"const": "legacy_unbaselineable"},
                }
            },
        ],
        "required": ["status", "reasons"],
        "type": "object",
    }


def _report_result(issue: dict[str, Any]) -> dict[str, Any]:
    """One validated return's entry in the report."""
    return _closed(
        {
            "errors": {"items": issue, "type": "array"},
            "filename": {"type": ["string", "null"]},
            "ok": {"type": "boolean"},
            "path": {"type": "string"},
            "pattern_scoring_generation": {
                "$ref": "#/$defs/generation",
                "propertyNames": {"enum": ["reasons", "status"]},
            },
            "return_schema_version": {"type": ["integer", "null"]},
            "status": {"type": ["string", "null"]},
        },
        [
            "errors",
            "filename",
            "ok",
            "path",
            "pattern_scoring_generation",
            "return_schema_version",
            "status",
        ],
    )


def report() -> dict[str, Any]:
    """returns-validation-report v1: what ``rvault-returns validate`` prints."""
    issue = _report_issue()
    generation = _report_generation()
    result = _report_result(issue)
    entry = {
        "$ref": "#/$defs/generation",
        "propertyNames": {"enum": ["filename", "path", "reasons", "status"]},
        "properties": {"filename": {"type": ["string", "null"]}, "path": {"type": "string"}},
        "required": ["filename", "path"],
        "type": "object",
    }
    return {
        "$id": "urn:rvault:returns-validation-report:v1",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"generation": generation, "issue": issue},
        "description": "The one report of rvault-returns validate. "
        "ok false (exit 2) adds the cli-failure error object.",
        **_closed(
            {
                "batch_errors": {"items": issue, "type": "array"},
                "batch_warnings": {"items": issue, "type": "array"},
                "catalog": _closed(
                    {
                        "entry_count": {"minimum": 1, "type": "integer"},
                        "fingerprint": {"pattern": "^[0-9a-f]{64}$", "type": "string"},
                        "source": {"enum": ["default", "custom"]},
                    },
                    ["entry_count", "fingerprint", "source"],
                ),
                "error": _closed(
                    {
                        "code": {"const": "returns_invalid"},
                        "message": {"minLength": 1, "type": "string"},
                        "path": {"type": "null"},
                    },
                    ["code", "message", "path"],
                ),
                "hint": {"minLength": 1, "type": "string"},
                "member": {"minLength": 1, "type": "string"},
                "ok": {"type": "boolean"},
                "pattern_scoring_generations": {"items": entry, "type": "array"},
                "return_count": {"minimum": 0, "type": "integer"},
                "returns": {"items": result, "type": "array"},
                "schema_version": {"const": 1},
                "valid_count": {"minimum": 0, "type": "integer"},
            },
            [
                "batch_errors",
                "catalog",
                "ok",
                "pattern_scoring_generations",
                "return_count",
                "returns",
                "schema_version",
                "valid_count",
            ],
        ),
        "allOf": [
            {
                "if": {"properties": {"ok": {"const": False}}},
                "then": {"required": ["error"]},
                "else": {"not": {"required": ["error"]}},
            }
        ],
    }


SHA256 = {"pattern": "^[0-9a-f]{64}$", "type": "string"}
REL_PATH = {"pattern": "^[^/\\s][^\\n]*$", "type": "string"}
ARTIFACT_ROOTS = ["vault", "pptx_source_dir"]
SOURCE_GROUPS = {
    "items": {
        "items": {"enum": list(v.EVIDENCE_SOURCES)},
        "minItems": 1,
        "type": "array",
        "uniqueItems": True,
    },
    "type": "array",
}
SORTED_SOURCES = {
    "items": {"enum": list(v.EVIDENCE_SOURCES)},
    "type": "array",
    "uniqueItems": True,
}


def _identity() -> dict[str, Any]:
    """Where a verified artifact lives: root name, root-relative path, exact SHA-256."""
    return {
        "artifact_path": REL_PATH,
        "artifact_root": {"enum": ARTIFACT_ROOTS},
        "artifact_sha256": SHA256,
    }


_SECONDS = {"minimum": 0, "type": "number"}


def _transcript_locator(channel: str) -> tuple[dict[str, Any], list[str]]:
    """A quote on verified lines; a timed transcript adds seconds from its timing artifact."""
    props: dict[str, Any] = {
        "quote": TEXT,
        "translation": {"type": "string"},
        "line_start": {"minimum": 1, "type": "integer"},
        "line_end": {"minimum": 1, "type": "integer"},
        **_identity(),
    }
    required = ["quote", "line_start", "line_end", *_identity()]
    if channel == "timed_transcript":
        timing = {
            "start_seconds": _SECONDS,
            "end_seconds": _SECONDS,
            "timing_artifact_path": REL_PATH,
            "timing_artifact_sha256": SHA256,
        }
        props.update(timing)
        required += list(timing)
    return props, required


def _slides_locator(channel: str) -> tuple[dict[str, Any], list[str]]:
    """Unique slide numbers (two or more for a sequence) checked against a counted artifact."""
    props = {
        "slide_numbers": {
            "items": {"minimum": 1, "type": "integer"},
            "minItems": 2 if channel == "slide_sequence" else 1,
            "type": "array",
            "uniqueItems": True,
        },
        "slide_count": {"minimum": 1, "type": "integer"},
        **_identity(),
    }
    return props, ["slide_numbers", "slide_count", *_identity()]


def _video_locator(channel: str) -> tuple[dict[str, Any], list[str]]:
    """An interval of an identity-bound recording of verified duration."""
    props = {
        "start_seconds": _SECONDS,
        "end_seconds": _SECONDS,
        "duration_seconds": {"exclusiveMinimum": 0, "type": "number"},
        **_identity(),
    }
    return props, ["start_seconds", "end_seconds", "duration_seconds", *_identity()]


def _metadata_locator(channel: str) -> tuple[dict[str, Any], list[str]]:
    """A talk metadata field, its value before the return and the owner's value after it."""
    props = {
        "field": {"enum": list(v.TALK_METADATA_FIELDS)},
        "value": {},
        "owner_value_after_return": {},
    }
    return props, ["field", "value", "owner_value_after_return"]


_LOCATORS = {
    "transcript": _transcript_locator,
    "timed_transcript": _transcript_locator,
    "slides": _slides_locator,
    "slide_sequence": _slides_locator,
    "video": _video_locator,
}


def _citation_shape(channel: str) -> dict[str, Any]:
    """The closed citation of one channel: its sources, then its channel's locator."""
    sources = sorted(s for s, chans in v.SOURCE_CHANNELS.items() if channel in chans)
    props: dict[str, Any] = {"channel": {"const": channel}, "source": {"enum": sources}}
    locator, required = _LOCATORS.get(channel, _metadata_locator)(channel)
    props.update(locator)
    return {
        "if": {"properties": {"channel": {"const": channel}}},
        "then": _closed(props, ["source", "channel", *required]),
    }


def _canonical_citation() -> dict[str, Any]:
    """The persisted citation: the worker locator plus the engine's verified enrichment."""
    shapes = [_citation_shape(channel) for channel in v.CHANNELS]
    return {
        "allOf": shapes,
        "description": (
            "A persisted citation. The worker's locator (quote, slide_numbers, video interval, "
            "metadata field) plus what persistence verified and stamped: transcript line_start/"
            "line_end (the quote occurs exactly once in the whitespace-normalized transcript), "
            "timed start/end seconds from a current timing receipt v2, the slide count and the "
            "artifact the slide numbers were checked against, the identity-bound artifact and "
            "verified duration of a video interval, the metadata value before the return and the "
            "owner value after it."
        ),
        "properties": {"channel": {"enum": list(v.CHANNELS)}},
        "required": ["channel", "source"],
        "type": "object",
    }


ABSENCE_REASONS = [
    "authorized_transcript",
    "authorized_rendered_static",
    "nonexhaustive_video_extraction",
    "bare_native_deck",
    "bare_delivery_video",
    "comparison_alignment_unverified",
    "incomplete_range_coverage",
]
_COUNT_KEY = {
    "transcript": "line_count",
    "static_slides": "page_count",
    "native_deck": "page_count",
    "delivery_video": "duration_seconds",
}


_CAPABILITY = {
    "absence_capability_complete": {"type": "boolean"},
    "absence_capability_reason": {"enum": ABSENCE_REASONS},
    "coverage_complete": {"type": "boolean"},
}
_AUTHORIZED_ABSENCE = ["authorized_transcript", "authorized_rendered_static"]


def _source_inspection_shape(source: str) -> dict[str, Any]:
    """The row of one evidence source: its range, verified bound, capability, identity."""
    key = v.RANGE_KEY[source]
    count_key = _COUNT_KEY[source]
    bound = (
        {"exclusiveMinimum": 0, "type": "number"}
        if source == "delivery_video"
        else {"minimum": 1, "type": "integer"}
    )
    props: dict[str, Any] = {
        "source": {"const": source},
        key: _range(source == "delivery_video"),
        count_key: bound,
        **_CAPABILITY,
        **_identity(),
    }
    required = ["source", key, count_key, *_CAPABILITY, *_identity()]
    if source != "transcript":
        then = _closed(props, required, dependentRequired={})
        then.pop("dependentRequired", None)
        return {"if": {"properties": {"source": {"const": source}}}, "then": then}
    props.update(
        quality_artifact_path=REL_PATH,
        quality_artifact_sha256=SHA256,
        timing_artifact_path=REL_PATH,
        timing_artifact_sha256=SHA256,
    )
    required += ["quality_artifact_path", "quality_artifact_sha256"]
    timing = {
        "timing_artifact_path": ["timing_artifact_sha256"],
        "timing_artifact_sha256": ["timing_artifact_path"],
    }
    then = _closed(props, required, dependentRequired=timing)
    return {"if": {"properties": {"source": {"const": source}}}, "then": then}


def _comparison_inspection_shape() -> dict[str, Any]:
    """The comparison row: the identity of every compared artifact, never absence-capable."""
    member = _closed(
        {"source": {"enum": list(v.EVIDENCE_SOURCES)}, **_identity()},
        ["source", *_identity()],
    )
    return {
        "if": {"properties": {"source": {"const": v.COMPARISON}}},
        "then": _closed(
            {
                "artifact_identities": {"items": member, "minItems": 2, "type": "array"},
                "comparison_scope": {"enum": ["full", "partial"]},
                "evidence_sources_used": _sources_used(),
                "source": {"const": v.COMPARISON},
                **_CAPABILITY,
            },
            [
                "source",
                "evidence_sources_used",
                "comparison_scope",
                "artifact_identities",
                *_CAPABILITY,
            ],
        ),
    }


def _canonical_inspection() -> dict[str, Any]:
    """The persisted source_inspection row: the worker ranges plus derived bounds and identity."""
    shapes = [_source_inspection_shape(source) for source in v.EVIDENCE_SOURCES]
    shapes.append(_comparison_inspection_shape())
    for shape in shapes:
        if not shape["then"].get("dependentRequired"):
            shape["then"].pop("dependentRequired", None)
    absence_gate = {
        "if": {
            "properties": {"absence_capability_complete": {"const": True}},
            "required": ["absence_capability_complete"],
        },
        "then": {
            "properties": {
                "absence_capability_reason": {"enum": _AUTHORIZED_ABSENCE},
                "coverage_complete": {"const": True},
            }
        },
        "else": {
            "properties": {"absence_capability_reason": {"not": {"enum": _AUTHORIZED_ABSENCE}}}
        },
    }
    return {
        "allOf": [*shapes, absence_gate],
        "description": (
            "A persisted source_inspection row. coverage_complete is locator range completeness "
            "against the verified bound (line_count, page_count or duration_seconds of the exact "
            "artifact); absence_capability_complete/_reason is the engine-owned gate for "
            "undetected and applicability outcomes. Comparison rows name the identity of every "
            "compared artifact and are never absence-capable."
        ),
        "properties": {"source": {"enum": list(v.EVIDENCE_SOURCE_NAMES)}},
        "required": ["source"],
        "type": "object",
    }


def _persisted_sourced() -> dict[str, Any]:
    fields = _sourced()
    fields["evidence_citations"] = {
        "items": {"$ref": "#/$defs/citation"},
        "minItems": 1,
        "type": "array",
    }
    return fields


def _persisted_detection() -> dict[str, Any]:
    props = {
        "confidence": {"enum": list(v.CONFIDENCES)},
        "dimensions": {"items": {"enum": list(v.DIMENSIONS)}, "type": "array"},
        **_persisted_sourced(),
    }
    return _closed(
        props,
        [
            "pattern_id",
            "confidence",
            "evidence_source",
            "evidence",
            "evidence_citations",
            "dimensions",
        ],
        allOf=_comparison_rule(),
    )


def _persisted_assessment() -> dict[str, Any]:
    shape = _assessment()
    shape["properties"].update(_persisted_sourced())
    return shape


def _persisted_not_evaluable() -> dict[str, Any]:
    return _closed(
        {
            "available_source_groups": SOURCE_GROUPS,
            "capability_fact": _closed(
                {
                    "absence_capable_sources": SORTED_SOURCES,
                    "complete_sources": SORTED_SOURCES,
                    "inspected_sources": SORTED_SOURCES,
                },
                ["inspected_sources", "complete_sources", "absence_capable_sources"],
            ),
            "dimensions": {"items": {"enum": list(v.DIMENSIONS)}, "type": "array"},
            "pattern_id": ID,
            "reason_code": {"enum": list(v.NOT_EVALUABLE_REASONS)},
            "required_source_groups": SOURCE_GROUPS,
            "slide_count": {"minimum": 1, "type": "integer"},
        },
        [
            "pattern_id",
            "reason_code",
            "required_source_groups",
            "available_source_groups",
            "capability_fact",
            "dimensions",
        ],
        description=(
            "required_source_groups: the catalog gate the reason refers to (absence gate, "
            "applicability gate, base gate for a positive-only entry, [] for a pending gate); "
            "available_source_groups: its alternatives whose every member was inspected; "
            "capability_fact: which sources were inspected, completely covered and "
            "absence-capable; slide_count: the verified slide count when the gate names a "
            "slide source and one is known."
        ),
    )


OUTCOMES = ["detected", "undetected", "not_applicable", "not_evaluable"]


def pattern_observations() -> dict[str, Any]:
    """Evidence ledger v2: the pattern_observations object of a current scoring generation."""
    ids = {"items": ID, "type": "array", "uniqueItems": True}
    props: dict[str, Any] = {
        "antipattern_ids": ids,
        "antipatterns_detected": {"items": {"$ref": "#/$defs/detection"}, "type": "array"},
        "applicability_assessments": {"items": {"$ref": "#/$defs/assessment"}, "type": "array"},
        "evidence_schema_version": {"const": 2},
        "evidence_sources": {
            "items": {"enum": list(v.EVIDENCE_SOURCE_NAMES)},
            "minItems": 1,
            "type": "array",
            "uniqueItems": True,
        },
        "not_evaluable": {"items": {"$ref": "#/$defs/not_evaluable"}, "type": "array"},
        "not_evaluable_ids": ids,
        "opportunity_coverage_identity": SHA256,
        "pattern_ids": ids,
        "pattern_outcomes": {"items": {"$ref": "#/$defs/outcome"}, "type": "array"},
        "pattern_score": {"type": "integer"},
        "patterns_detected": {"items": {"$ref": "#/$defs/detection"}, "type": "array"},
        "source_inspection": {
            "items": {"$ref": "#/$defs/source_inspection"},
            "minItems": 1,
            "type": "array",
        },
    }
    out = _closed(props, list(props))
    return {
        "$id": "urn:rvault:pattern-observations:v2",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "assessment": _persisted_assessment(),
            "citation": _canonical_citation(),
            "detection": _persisted_detection(),
            "not_evaluable": _persisted_not_evaluable(),
            "outcome": _closed(
                {"outcome": {"enum": OUTCOMES}, "pattern_id": ID}, ["pattern_id", "outcome"]
            ),
            "source_inspection": _canonical_inspection(),
        },
        "description": (
            "Evidence ledger v2: talks[].pattern_observations of a current scoring generation "
            "(talk schema 5, persisted by rvault-returns persist from a valid v5 return). "
            "pattern_outcomes holds exactly one row per observable catalog entry, sorted by "
            "pattern_id; opportunity_coverage_identity is the payload_sha256 (canonical JSON) of "
            'that matrix as opportunities, the object {"rows": [[pattern_id, opportunity], '
            '...], "schema": "opportunity-coverage/v1"} with detected and undetected both '
            'written as "evaluable" (not_applicable and not_evaluable as themselves), so '
            "talks with the same evaluable opportunities share it whatever was detected; "
            "pattern_ids/antipattern_ids/not_evaluable_ids are sorted; pattern_score "
            "is len(pattern_ids) - len(antipattern_ids) and equals the talk's promoted "
            "pattern_score."
        ),
        **{k: out[k] for k in ("additionalProperties", "properties", "required", "type")},
    }


def _persisted_generation() -> dict[str, Any]:
    """A talk's pattern-scoring generation as persist reports it."""
    return {
        "oneOf": [
            _closed(
                {"reasons": {"maxItems": 0, "type": "array"}, "status": {"const": "current"}},
                ["status", "reasons"],
            ),
            _closed(
                {
                    "reasons": {"items": ID, "minItems": 1, "type": "array", "uniqueItems": True},
                    "status": {"const": "legacy_unbaselineable"},
                },
                ["status", "reasons"],
            ),
            _closed(
                {
                    "reasons": {"maxItems": 0, "type": "array"},
                    "status": {"const": "not_applicable"},
                },
                ["status", "reasons"],
            ),
        ]
    }


def _persisted_talk() -> dict[str, Any]:
    """One persisted talk: merge contract, fields merged and cleared, receipt, warnings."""
    generation = _persisted_generation()
    warning = _closed(
        {"code": ID, "message": TEXT, "path": {"type": "string"}}, ["code", "message", "path"]
    )
    return _closed(
        {
            "cleared_fields": STR_LIST,
            "filename": ID,
            "merge_contract": {"enum": ["snapshot", "legacy_additive", "status_only"]},
            "merged_fields": STR_LIST,
            "opportunity_coverage_identity": {"anyOf": [SHA256, {"type": "null"}]},
            "pattern_score": {"type": ["integer", "null"]},
            "pattern_scoring_generation": generation,
            "result_payload_sha256": SHA256,
            "return_schema_version": {"enum": [1, 2, 3, 4, 5]},
            "status": {"enum": list(v.STATUSES)},
            "talk_schema_version": {"minimum": 1, "type": "integer"},
            "warnings": {"items": warning, "type": "array"},
        },
        [
            "cleared_fields",
            "filename",
            "merge_contract",
            "merged_fields",
            "opportunity_coverage_identity",
            "pattern_score",
            "pattern_scoring_generation",
            "result_payload_sha256",
            "return_schema_version",
            "status",
            "talk_schema_version",
            "warnings",
        ],
    )


def persistence_report() -> dict[str, Any]:
    """returns-persistence-report v2, the current version (v1 is frozen JSON)."""
    version = 2
    talk = _persisted_talk()
    props: dict[str, Any] = {
        "batch": _closed(
            {
                "batch_id": ID,
                "claimed_at": {"type": ["string", "null"]},
                "member_count": {"minimum": 1, "type": "integer"},
                "run_id": ID,
            },
            ["run_id", "batch_id", "claimed_at", "member_count"],
        ),
        "catalog": _closed(
            {"entry_count": COUNT, "fingerprint": SHA256, "source": TEXT},
            ["entry_count", "fingerprint", "source"],
        ),
        "current_adherence_baseline": {"$ref": "urn:rvault:adherence-baseline:v2"},
        "database_written": {"type": "boolean"},
        "durability_state": {
            "enum": [
                "durable",
                "unchanged",
                "installed_directory_fsync_failed",
                "installed_verification_failed",
            ]
        },
        "input_sha256": SHA256,
        "ok": {"const": True},
        "output_sha256": SHA256,
        "processed_date": TEXT,
        "schema_version": {"const": version},
        "talks": {"items": talk, "minItems": 1, "type": "array"},
        "warnings": {"items": {"type": "string"}, "type": "array"},
    }
    return _persistence_report_v2(props, talk)


def _persistence_report_v2(props: dict[str, Any], talk: dict[str, Any]) -> dict[str, Any]:
    """v1's members plus the apply protocol's: mode, apply_requested, claims, next command."""
    claim = _closed(
        {
            "batch_id": ID,
            "filename": ID,
            "released_at": TEXT,
            "result_payload_sha256": SHA256,
            "result_status": talk["properties"]["status"],
            "run_id": ID,
            "state": {"const": "completed"},
        },
        [
            "batch_id",
            "filename",
            "released_at",
            "result_payload_sha256",
            "result_status",
            "run_id",
            "state",
        ],
    )
    props = {
        **props,
        "apply_requested": {"type": "boolean"},
        "claims_closed": {"items": claim, "minItems": 1, "type": "array"},
        "durability_state": {"enum": ["dry_run", *props["durability_state"]["enum"]]},
        "mode": {"enum": ["dry-run", "apply"]},
        "next_command": {"anyOf": [TEXT, {"type": "null"}]},
        # The coaching loop: each goal as `rvault-db goals verify` would judge it on the
        # post-batch database, and that follow-up command (null when no goal would change).
        "improvement_goals": {"$ref": "urn:rvault:db-goals-report:v1#/properties/goals"},
        "goals_command": {"anyOf": [TEXT, {"type": "null"}]},
    }
    out = _closed(props, list(props))
    mode = {
        "if": {"properties": {"mode": {"const": "dry-run"}}, "required": ["mode"]},
        "then": {
            "properties": {
                "apply_requested": {"const": False},
                "database_written": {"const": False},
                "durability_state": {"const": "dry_run"},
            }
        },
        "else": {
            "properties": {
                "apply_requested": {"const": True},
                "durability_state": {"not": {"const": "dry_run"}},
                "next_command": {"type": "null"},
            }
        },
    }
    return {
        "$id": "urn:rvault:returns-persistence-report:v2",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "description": (
            "What rvault-returns persist prints: per talk the merge contract, the fields merged "
            "and cleared, warnings, the scoring generation and the claim receipt "
            "(result_payload_sha256); the claims the batch closes (claims_closed); the "
            "post-batch all-inclusive current_adherence_baseline (as_of = processed_date, the "
            "completion stamp); and the database write. A dry run (mode dry-run, the default) "
            "computes all of it and writes nothing (database_written false, durability_state "
            "dry_run, output_sha256 the digest an apply would install) and names the exact "
            "apply command in next_command; an apply (mode apply: --apply --expected-sha256 "
            "with the dry run's input_sha256) reports the one install (durability_state, "
            "writer warnings) and next_command null. A refusal prints cli-failure instead and "
            "writes nothing."
        ),
        "allOf": [mode],
        **{k: out[k] for k in ("additionalProperties", "properties", "required", "type")},
    }


def current_schemas() -> dict[str, dict[str, Any]]:
    """``<artifact>/v<N>.schema.json`` -> the current schema this tool generates."""
    return {
        "worker-return/v5.schema.json": worker_return(),
        "returns-validation-report/v1.schema.json": report(),
        "pattern-observations/v2.schema.json": pattern_observations(),
        "returns-persistence-report/v2.schema.json": persistence_report(),
    }


def outputs() -> dict[Path, bytes]:
    """Each generated file's bytes, marked with its generator (``$comment``)."""
    return {
        SCHEMAS / name: artifact_bytes(mark_generated(schema, GENERATOR))
        for name, schema in current_schemas().items()
    }


def main(argv: list[str]) -> int:
    stale = []
    for path, data in outputs().items():
        if "--check" in argv:
            if not path.exists() or path.read_bytes() != data:
                stale.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for path in stale:
        print(f"stale: {path} (run .venv/bin/python {GENERATOR})", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
