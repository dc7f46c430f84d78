"""Build the worker-return v1-v5 and returns-validation-report v1 JSON Schemas.

The schemas are contracts in contracts/; they are generated from the same
closed vocabularies the validator uses (``rvault_returns_persistence.vocabulary``)
so the two cannot drift. ``python scripts/build_schemas.py`` rewrites them;
``--check`` exits 1 when a committed schema differs (a test runs that).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import artifact_bytes
from rvault_returns_persistence import vocabulary as v

SCHEMAS = Path(__file__).resolve().parents[3] / "contracts" / "src" / "rvault_contracts" / "schemas"
TEXT = {"pattern": "\\S", "type": "string"}
ID = {"minLength": 1, "type": "string"}
STR_LIST = {"items": {"type": "string"}, "type": "array"}
COUNT = {"minimum": 0, "type": "integer"}


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


def _detection(strict: bool) -> dict[str, Any]:
    props = {
        "confidence": {"enum": list(v.CONFIDENCES)},
        "dimensions": {"items": {"enum": list(v.DIMENSIONS)}, "type": "array"},
        **_sourced(),
    }
    if not strict:
        return {
            "properties": {"evidence_citations": {"type": "array"}, "pattern_id": ID},
            "required": ["pattern_id"],
            "type": "object",
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


def _structured(version: int) -> dict[str, Any]:
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


def _pattern_observations(version: int) -> dict[str, Any]:
    strict = version >= 4
    reasons = list(v.NOT_EVALUABLE_REASONS)
    if version < 5:
        reasons.remove("missing_applicability_source_coverage")
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
            )
            if strict
            else {"type": "object"},
            "type": "array",
        },
        "pattern_score": score,
        "patterns_detected": {"items": {"$ref": "#/$defs/detection"}, "type": "array"},
    }
    if not strict:
        return {
            "properties": props,
            "required": ["patterns_detected", "antipatterns_detected", "pattern_score"],
            "type": "object",
        }
    props["source_inspection"] = {"items": _inspection_record(), "minItems": 1, "type": "array"}
    if version == 5:
        props["applicability_assessments"] = {"items": _assessment(), "type": "array"}
    return _closed(props, list(props))


def worker_return(version: int) -> dict[str, Any]:
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
        "structured_data": _structured(version),
        "verbatim_examples": _closed({lane: STR_LIST for lane in v.VERBATIM_LANES}),
        "adherence_assessment": {"const": ""}
        if version == 5
        else {"pattern": "^(|[\\s\\S]*\\S[\\s\\S]*)$", "type": "string"},
        "new_patterns": {"type": "string"},
        "summary_updates": {"type": "string"},
        "pattern_observations": _pattern_observations(version),
        "processed_date": {"type": "string"},
    }
    if version < 5:
        top["adherence_comparison"] = {"type": "object"}
    if version == 5:
        top["catalog_feedback"] = _feedback()
    schema: dict[str, Any] = {
        "$id": f"urn:rvault:worker-return:v{version}",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"citation": _citation(), "detection": _detection(version >= 4)},
        "description": (
            f"Worker return v{version}. "
            + (
                "Current: fresh claim-v5 work. "
                if version == 5
                else "Replay only: never current scoring. "
            )
            + (
                "Cross-field rules (claim binding, catalog gates, artifact "
                "bounds) are enforced by rvault-returns validate."
            )
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
    if version <= 3:
        schema["$defs"] = {"detection": _detection(False)}
    if version == 1:
        return {
            "$id": "urn:rvault:worker-return:v1",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "Worker return v1 (historical, also any return "
            "without a version): additive legacy merge, type-only checks.",
            "properties": {
                "filename": {"minLength": 1, "type": "string"},
                "pattern_observations": {"type": ["object", "array", "null"]},
                "return_schema_version": {"const": 1},
                "status": {"enum": list(v.STATUSES)},
                "structured_data": {"type": "object"},
                "verbatim_examples": {"type": "object"},
            },
            "required": ["filename", "status"],
            "type": "object",
        }
    return schema


def report() -> dict[str, Any]:
    issue = _closed(
        {
            "code": {"pattern": "^[a-z][a-z0-9_]*$", "type": "string"},
            "message": {"minLength": 1, "type": "string"},
            "path": {"type": "string"},
        },
        ["code", "message", "path"],
    )
    reasons_empty = {"maxItems": 0, "type": "array"}
    reasons_legacy = {
        "items": {"type": "string"},
        "minItems": 1,
        "type": "array",
        "uniqueItems": True,
    }
    generation = {
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
    result = _closed(
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


def outputs() -> dict[Path, bytes]:
    out = {
        SCHEMAS / "worker-return" / f"v{n}.schema.json": artifact_bytes(worker_return(n))
        for n in range(1, 6)
    }
    out[SCHEMAS / "returns-validation-report" / "v1.schema.json"] = artifact_bytes(report())
    return out


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
        print(f"stale: {path}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
