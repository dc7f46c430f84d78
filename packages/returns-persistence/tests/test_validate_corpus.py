"""Table-driven corpus: valid returns pass; every rule has a failing case asserting its code.

Each case mutates a deep copy of a valid return for one talk of a shared
vault (one talk per situation, each its own one-member batch) and names the
stable code the validator must report. The same table drives the console
script test in test_cli_validate.py for a sample of cases.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import returns_testdata as td
from rvault_returns_persistence.database import Database, DatabaseError, load_database
from rvault_returns_persistence.validator import validate_batch

Mutation = Callable[[dict[str, Any]], Any]
VROOT = Path(
    "/nonexistent"
)  # the module vault's root, set by the ``vault`` fixture for manifest mutations


@pytest.fixture(scope="module")
def vault(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Database, dict[str, dict[str, Any]]]:
    global VROOT
    root = tmp_path_factory.mktemp("vault")
    VROOT = root
    db_path, specs = td.corpus_vault(root)
    return root, load_database(db_path), specs


@pytest.fixture(scope="module")
def bases(vault: tuple[Path, Database, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    root, _, specs = vault
    out = {
        "main": td.complete_return(specs["main"], root),
        "german": td.complete_return(specs["german"], root, deck_slides=None),
        "video": td.complete_return(specs["video"], root, deck_slides=None),
    }
    for version in (2, 3, 4):
        out[f"legacy{version}"] = td.complete_return(
            specs[f"legacy{version}"], root, deck_slides=None, version=version
        )
    v1 = copy.deepcopy(out["legacy2"])
    v1["filename"] = specs["legacy1"]["filename"]
    v1["queue_claim"]["batch_id"] = "legacy1"
    del v1["return_schema_version"]
    out["legacy1"] = v1
    ret = copy.deepcopy(out["main"])
    ret["filename"] = specs["unclaimed"]["filename"]
    out["unclaimed"] = ret
    skipped = {
        "filename": specs["nosrc"]["filename"],
        "return_schema_version": 5,
        "queue_claim": {"run_id": td.RUN_ID, "batch_id": "nosrc", "reprocess_generation": 1},
        "status": "skipped_no_sources",
    }
    out["nosrc"] = skipped
    return out


def run(vault: Any, document: Any) -> dict[str, Any]:
    root, db, _ = vault
    return validate_batch(
        document, db=db, catalog=td.CATALOG, vault_root=root, catalog_label="default"
    )


def codes(report: dict[str, Any]) -> set[str]:
    found = {e["code"] for r in report["returns"] for e in r["errors"]}
    return found | {e["code"] for e in report["batch_errors"]}


# ---------------------------------------------------------------- mutations
def po(r: dict[str, Any]) -> dict[str, Any]:
    return r["pattern_observations"]


def det(r: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return po(r)["patterns_detected"][i]


def cit(r: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return det(r, i)["evidence_citations"][0]


def sd(r: dict[str, Any]) -> dict[str, Any]:
    return r["structured_data"]


def ne(r: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(x for x in po(r)["not_evaluable"] if x["pattern_id"] == pid)


def drop_ne(r: dict[str, Any], pid: str) -> None:
    po(r)["not_evaluable"] = [x for x in po(r)["not_evaluable"] if x["pattern_id"] != pid]


def assessment(r: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(x for x in po(r)["applicability_assessments"] if x["pattern_id"] == pid)


def add_detection(
    r: dict[str, Any], record: dict[str, Any], lane: str = "patterns_detected"
) -> None:
    drop_ne(r, record["pattern_id"])
    po(r)["applicability_assessments"] = [
        x for x in po(r)["applicability_assessments"] if x["pattern_id"] != record["pattern_id"]
    ]
    po(r)[lane].append(record)
    p, a = len(po(r)["patterns_detected"]), len(po(r)["antipatterns_detected"])
    po(r)["pattern_score"] = {"patterns_used": p, "antipatterns_detected": a, "score": p - a}


def add_comparison(r: dict[str, Any], group: list[str], scope: str = "full") -> None:
    if "source_comparison" not in po(r)["evidence_sources"]:
        po(r)["evidence_sources"].append("source_comparison")
    po(r)["source_inspection"].append(
        {"source": "source_comparison", "evidence_sources_used": group, "comparison_scope": scope}
    )


def comparison_detection(
    group: list[str] | None = None, cite: tuple[str, ...] = ("static_slides", "native_deck")
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "pattern_id": "progressive-reveal",
        "confidence": "strong",
        "evidence_source": "source_comparison",
        "evidence": "The deck builds and the rendered PDF agree on three consecutive states.",
        "evidence_citations": [
            {"source": s, "channel": "slide_sequence", "slide_numbers": [4, 5, 6]} for s in cite
        ],
    }
    if group is not None:
        record["evidence_sources_used"] = group
    return record


def with_comparison(
    group: list[str] | None, record_group: list[str] | None = None, **kw: Any
) -> Mutation:
    def mutate(r: dict[str, Any]) -> None:
        if record_group is not None:
            add_comparison(r, record_group)
        add_detection(r, comparison_detection(group, **kw))

    return mutate


def ledger(n: int, **row_overrides: Any) -> list[dict[str, Any]]:
    rows = []
    for i in range(1, n + 1):
        row = {
            "slide_number": i,
            "background_color_name": "purple_halftone",
            "content_type": "meme_only" if i % 4 == 0 else "content_bullets",
            "image_composition": "full_bleed",
            "has_speech_bubble": False,
            "has_starburst": False,
            "has_footer": True,
        }
        rows.append(row)
    rows[0].update(row_overrides)
    return rows


def set_ledger(n: int = 12, count: int | None = 12, **row: Any) -> Mutation:
    def mutate(r: dict[str, Any]) -> None:
        sd(r)["per_slide_visual"] = ledger(n, **row)
        if count is not None:
            sd(r)["slide_count"] = count

    return mutate


def setter(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(r: dict[str, Any]) -> None:
        target = r
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = copy.deepcopy(value)

    return mutate


def deleter(path: tuple[Any, ...]) -> Mutation:
    def mutate(r: dict[str, Any]) -> None:
        target = r
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(r: dict[str, Any]) -> None:
        for m in mutations:
            m(r)

    return mutate


PO = "pattern_observations"
DET0 = (PO, "patterns_detected", 0)
CIT0 = (*DET0, "evidence_citations", 0)
FEED = "catalog_feedback"
SI = (PO, "source_inspection")

# (id, base talk, mutation, expected code)
INVALID: list[tuple[str, str, Mutation, str]] = [
    # ---- envelope: identity, claim, status
    ("unknown_version", "main", setter(("return_schema_version",), 6), "return_version_unknown"),
    ("boolean_version", "main", setter(("return_schema_version",), True), "return_version_unknown"),
    ("talk_missing", "main", setter(("filename",), "2099-01-01-nothing.md"), "talk_not_found"),
    ("filename_missing", "main", deleter(("filename",)), "missing_required_block"),
    ("status_unknown", "main", setter(("status",), "done"), "status_unknown"),
    ("status_missing", "main", deleter(("status",)), "status_unknown"),
    ("no_active_claim", "unclaimed", lambda r: None, "claim_not_active"),
    (
        "v5_claim_v4_return",
        "main",
        setter(("return_schema_version",), 4),
        "claim_return_incompatible",
    ),
    (
        "v3_claim_v5_return",
        "legacy3",
        setter(("return_schema_version",), 5),
        "claim_return_incompatible",
    ),
    (
        "v4_claim_v3_return",
        "legacy4",
        setter(("return_schema_version",), 3),
        "claim_return_incompatible",
    ),
    (
        "v2_claim_v3_return",
        "legacy2",
        setter(("return_schema_version",), 3),
        "claim_return_incompatible",
    ),
    (
        "run_id_mismatch",
        "main",
        setter(("queue_claim", "run_id"), "other-run"),
        "queue_claim_mismatch",
    ),
    (
        "generation_mismatch",
        "main",
        setter(("queue_claim", "reprocess_generation"), 2),
        "queue_generation_mismatch",
    ),
    ("queue_claim_missing", "main", deleter(("queue_claim",)), "missing_required_block"),
    (
        "queue_claim_extra",
        "main",
        setter(("queue_claim", "claimed_at"), td.CLAIMED_AT),
        "unknown_field",
    ),
    ("skipped_extra_key", "nosrc", setter(("rhetoric_notes",), "notes"), "skipped_extra_field"),
    (
        "skip_contradicted",
        "main",
        lambda r: (
            [
                r.pop(k)
                for k in list(r)
                if k not in ("filename", "return_schema_version", "queue_claim")
            ]
            and r.update(status="skipped_no_sources")
        ),
        "skip_contradicted_by_capabilities",
    ),
    # ---- required blocks and prose
    ("missing_structured", "main", deleter(("structured_data",)), "missing_required_block"),
    ("missing_feedback", "main", deleter((FEED,)), "missing_required_block"),
    ("missing_po", "main", deleter((PO,)), "missing_required_block"),
    ("unknown_top_level", "main", setter(("notes_extra",), "x"), "unknown_field"),
    ("notes_whitespace", "main", setter(("rhetoric_notes",), "   \n"), "prose_not_substantive"),
    ("areas_empty", "main", setter(("areas_for_improvement",), ""), "prose_not_substantive"),
    ("new_patterns_null", "main", setter(("new_patterns",), None), "wrong_type"),
    (
        "adherence_text_v5",
        "main",
        setter(("adherence_assessment",), "Good adherence."),
        "adherence_assessment_not_empty",
    ),
    (
        "adherence_whitespace_v4",
        "legacy4",
        setter(("adherence_assessment",), "  "),
        "adherence_assessment_whitespace",
    ),
    (
        "adherence_comparison_v5",
        "main",
        setter(("adherence_comparison",), {}),
        "adherence_comparison_forbidden",
    ),
    (
        "transcript_source_null",
        "main",
        setter(("transcript_source",), None),
        "transcript_source_null",
    ),
    (
        "transcript_source_bad",
        "main",
        setter(("transcript_source",), "none"),
        "transcript_source_unknown",
    ),
    (
        "transcript_path_new",
        "main",
        setter(("transcript_path",), "transcripts/x.txt"),
        "transcript_path_not_registered",
    ),
    ("slide_source_bad", "main", setter(("slide_source",), "keynote"), "slide_source_unknown"),
    (
        "transcript_only_processed",
        "main",
        setter(("slide_source",), "none"),
        "slide_source_none_requires_partial",
    ),
    (
        "slides_path_bad",
        "main",
        setter(("slides_local_path",), "/abs/deck.pdf"),
        "slides_local_path_invalid",
    ),
    (
        "slides_path_trailing_newline",  # re.match with "$" let "...pdf\n" through
        "main",
        setter(("slides_local_path",), "slides/deck.pdf\n"),
        "slides_local_path_invalid",
    ),
    (
        "processed_date_naive",
        "main",
        setter(("processed_date",), "2026-07-31T18:00:00"),
        "processed_date_not_timezone_aware",
    ),
    (
        "processed_date_garbage",
        "main",
        setter(("processed_date",), "yesterday"),
        "processed_date_invalid",
    ),
    (
        "processed_date_bad_day",
        "main",
        setter(("processed_date",), "2026-02-30"),
        "processed_date_invalid",
    ),
    (
        "clear_queue",
        "main",
        setter(("clear_fields",), ["_queue_claim"]),
        "clear_field_not_analysis_owned",
    ),
    (
        "clear_source_url",
        "main",
        setter(("clear_fields",), ["video_url"]),
        "clear_field_not_analysis_owned",
    ),
    (
        "clear_root",
        "main",
        setter(("clear_fields",), ["structured_data"]),
        "clear_field_not_analysis_owned",
    ),
    (
        "clear_bad_path",
        "main",
        setter(("clear_fields",), ["structured_data..x"]),
        "clear_field_invalid",
    ),
    (
        "clear_path_trailing_newline",
        "main",
        setter(("clear_fields",), ["verbatim_examples.jokes\n"]),
        "clear_field_invalid",
    ),
    (
        "clear_duplicate",
        "main",
        setter(("clear_fields",), ["verbatim_examples.jokes"] * 2),
        "duplicate_entry",
    ),
    # ---- structured data
    (
        "structured_unregistered",
        "main",
        setter(("structured_data", "my_notes"), {"a": 1}),
        "structured_field_unregistered",
    ),
    (
        "structured_scalar_type",
        "main",
        setter(("structured_data", "slide_count"), "12"),
        "structured_field_type",
    ),
    (
        "structured_object_type",
        "main",
        setter(("structured_data", "typography_observations"), []),
        "structured_field_type",
    ),
    (
        "co_presenters_missing",
        "main",
        setter(("structured_data", "co_presenter"), True),
        "co_presenters_required",
    ),
    (
        "co_presenters_contradict",
        "main",
        both(
            setter(("structured_data", "co_presenter"), False),
            setter(("structured_data", "co_presenters"), ["Ada"]),
        ),
        "co_presenters_inconsistent",
    ),
    (
        "image_dist_float",
        "main",
        both(
            setter(("structured_data", "image_source_distribution"), {"unknown": 2.5}),
            setter(("structured_data", "image_source_distribution_basis"), "Unit: slide."),
        ),
        "image_source_distribution_invalid",
    ),
    (
        "image_dist_note",
        "main",
        both(
            setter(
                ("structured_data", "image_source_distribution"),
                {"classification_note": "looks AI"},
            ),
            setter(("structured_data", "image_source_distribution_basis"), "Unit: slide."),
        ),
        "image_source_distribution_invalid",
    ),
    (
        "image_dist_no_basis",
        "main",
        setter(("structured_data", "image_source_distribution"), {"unknown": 3}),
        "image_source_distribution_basis_required",
    ),
    (
        "image_dist_blank_basis",
        "main",
        both(
            setter(("structured_data", "image_source_distribution"), {"unknown": 3}),
            setter(("structured_data", "image_source_distribution_basis"), " "),
        ),
        "image_source_distribution_basis_required",
    ),
    (
        "image_basis_orphan",
        "main",
        setter(("structured_data", "image_source_distribution_basis"), "Unit: slide."),
        "image_source_distribution_basis_orphan",
    ),
    ("ledger_no_count", "main", set_ledger(12, None), "ledger_slide_count_required"),
    ("ledger_short", "main", set_ledger(11, 12), "ledger_incomplete"),
    (
        "ledger_order",
        "main",
        both(set_ledger(), lambda r: sd(r)["per_slide_visual"].reverse()),
        "ledger_incomplete",
    ),
    ("ledger_alias", "main", set_ledger(notes="row-local note"), "ledger_row_keys"),
    ("ledger_content_type", "main", set_ledger(content_type="diagram"), "ledger_vocabulary"),
    ("ledger_composition", "main", set_ledger(image_composition="collage"), "ledger_vocabulary"),
    ("ledger_flag_type", "main", set_ledger(has_footer="yes"), "ledger_row_type"),
    ("ledger_blank_background", "main", set_ledger(background_color_name=" "), "ledger_row_type"),
    (
        "background_sequence",
        "main",
        both(
            set_ledger(), setter(("structured_data", "background_color_sequence"), ["white"] * 12)
        ),
        "background_sequence_mismatch",
    ),
    (
        "meme_count",
        "main",
        both(set_ledger(), setter(("structured_data", "meme_count"), 7)),
        "meme_count_mismatch",
    ),
    (
        "verbatim_lane",
        "main",
        setter(("verbatim_examples", "catchphrases"), []),
        "verbatim_lane_unknown",
    ),
    (
        "verbatim_type",
        "main",
        setter(("verbatim_examples", "jokes"), "one joke"),
        "verbatim_lane_type",
    ),
    # ---- video-extracted slides
    (
        "video_manifest_missing",
        "video",
        deleter(("structured_data", "video_extraction")),
        "video_manifest_required",
    ),
    (
        "video_manifest_invalid",
        "video",
        setter(("structured_data", "video_extraction", "unique_frame_count"), 7),
        "video_manifest_invalid",
    ),
    (
        "video_manifest_foreign",
        "video",
        lambda r: sd(r).update(video_extraction=td.manifest("OTHERvid001", VROOT)),
        "video_manifest_identity_mismatch",
    ),
    (
        "video_manifest_untrusted",
        "video",
        lambda r: sd(r).update(video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False)),
        "video_manifest_untrusted",
    ),
    ("video_path_missing", "video", deleter(("slides_local_path",)), "slides_local_path_required"),
    (
        "video_path_wrong",
        "video",
        setter(("slides_local_path",), "slides/other.pdf"),
        "slides_local_path_mismatch",
    ),
    (
        "video_partial_path_kept",
        "video",
        both(
            setter(("status",), "processed_partial"),
            lambda r: sd(r).update(
                video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False)
            ),
        ),
        "slides_local_path_forbidden",
    ),
    (
        "video_partial_not_cleared",
        "video",
        both(
            setter(("status",), "processed_partial"),
            deleter(("slides_local_path",)),
            lambda r: sd(r).update(
                video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False)
            ),
        ),
        "slides_local_path_clear_required",
    ),
    (
        "video_untrusted_authored",
        "video",
        both(
            setter(("status",), "processed_partial"),
            deleter(("slides_local_path",)),
            setter(("clear_fields",), ["slides_local_path"]),
            lambda r: sd(r).update(
                video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False),
                slide_design_style="minimal_dark",
            ),
        ),
        "untrusted_manifest_authored_field",
    ),
    (
        "video_untrusted_static",
        "video",
        both(
            setter(("status",), "processed_partial"),
            deleter(("slides_local_path",)),
            setter(("clear_fields",), ["slides_local_path"]),
            lambda r: sd(r).update(
                video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False)
            ),
        ),
        "untrusted_manifest_static_slides",
    ),
    # ---- pattern_observations shape and inspection
    ("po_missing_score", "main", deleter((PO, "pattern_score")), "missing_required_field"),
    ("po_missing_inspection", "main", deleter((*SI,)), "missing_required_field"),
    ("po_engine_outcomes", "main", setter((PO, "pattern_outcomes"), []), "engine_owned_field"),
    (
        "po_engine_identity",
        "main",
        setter((PO, "opportunity_coverage_identity"), "c" * 64),
        "engine_owned_field",
    ),
    ("po_engine_version", "main", setter((PO, "evidence_schema_version"), 2), "engine_owned_field"),
    ("po_unknown", "main", setter((PO, "pattern_ids"), []), "engine_owned_field"),
    ("po_unknown_plain", "main", setter((PO, "remarks"), "x"), "unknown_field"),
    (
        "evidence_source_name",
        "main",
        lambda r: po(r)["evidence_sources"].append("slides"),
        "evidence_source_unknown",
    ),
    (
        "evidence_source_dup",
        "main",
        lambda r: po(r)["evidence_sources"].append("transcript"),
        "duplicate_entry",
    ),
    (
        "inspection_set_mismatch",
        "main",
        lambda r: po(r)["evidence_sources"].remove("native_deck"),
        "inspection_sources_mismatch",
    ),
    ("inspection_extra_field", "main", setter((*SI, 0, "line_count"), 240), "engine_owned_field"),
    (
        "inspection_coverage_flag",
        "main",
        setter((*SI, 0, "coverage_complete"), True),
        "engine_owned_field",
    ),
    (
        "inspection_capability",
        "main",
        setter((*SI, 0, "absence_capability_complete"), True),
        "engine_owned_field",
    ),
    (
        "inspection_alias",
        "main",
        setter((*SI, 1, "line_ranges"), [[1, 2]]),
        "inspection_record_shape",
    ),
    (
        "inspection_unknown_source",
        "main",
        lambda r: po(r)["source_inspection"].append({"source": "audio"}),
        "inspection_record_shape",
    ),
    ("range_zero", "main", setter((*SI, 0, "line_ranges"), [[0, 240]]), "range_invalid"),
    ("range_reversed", "main", setter((*SI, 0, "line_ranges"), [[20, 10]]), "range_invalid"),
    ("range_float_lines", "main", setter((*SI, 0, "line_ranges"), [[1.0, 240]]), "range_invalid"),
    ("range_time_empty", "main", setter((*SI, 3, "time_ranges"), [[5.0, 5.0]]), "range_invalid"),
    (
        "range_overlap",
        "main",
        setter((*SI, 0, "line_ranges"), [[1, 120], [100, 240]]),
        "ranges_unordered_or_overlapping",
    ),
    (
        "range_unordered",
        "main",
        setter((*SI, 0, "line_ranges"), [[121, 240], [1, 120]]),
        "ranges_unordered_or_overlapping",
    ),
    (
        "range_time_overlap",
        "main",
        setter((*SI, 3, "time_ranges"), [[0, 900.0], [800.0, 1800.0]]),
        "ranges_unordered_or_overlapping",
    ),
    (
        "range_past_transcript",
        "main",
        setter((*SI, 0, "line_ranges"), [[1, 241]]),
        "range_exceeds_artifact",
    ),
    (
        "range_past_pdf",
        "main",
        setter((*SI, 1, "page_ranges"), [[1, 13]]),
        "range_exceeds_artifact",
    ),
    (
        "range_past_video",
        "main",
        setter((*SI, 3, "time_ranges"), [[0, 1900.0]]),
        "range_exceeds_artifact",
    ),
    (
        "inspection_dup_source",
        "main",
        lambda r: po(r)["source_inspection"].append(
            {"source": "transcript", "line_ranges": [[1, 2]]}
        ),
        "inspection_duplicate_source",
    ),
    (
        "comparison_marker_member",
        "main",
        lambda r: add_comparison(r, ["source_comparison", "transcript"]),
        "comparison_group_invalid",
    ),
    (
        "comparison_single",
        "main",
        lambda r: add_comparison(r, ["transcript"]),
        "comparison_group_invalid",
    ),
    (
        "comparison_repeat",
        "main",
        lambda r: (
            add_comparison(r, ["transcript", "native_deck"]),
            add_comparison(r, ["native_deck", "transcript"]),
        ),
        "comparison_group_invalid",
    ),
    (
        "comparison_scope",
        "main",
        lambda r: add_comparison(r, ["transcript", "native_deck"], scope="most"),
        "inspection_record_shape",
    ),
    # ---- detections
    ("pattern_unknown", "main", setter((*DET0, "pattern_id"), "not-a-pattern"), "pattern_unknown"),
    (
        "pattern_duplicate",
        "main",
        lambda r: po(r)["patterns_detected"].append(copy.deepcopy(det(r))),
        "pattern_duplicate",
    ),
    (
        "bucket_swap",
        "main",
        lambda r: po(r)["antipatterns_detected"].append(po(r)["patterns_detected"].pop(0)),
        "pattern_polarity_mismatch",
    ),
    (
        "not_observable",
        "main",
        lambda r: add_detection(r, {**copy.deepcopy(det(r)), "pattern_id": "carnegie-hall"}),
        "pattern_not_observable",
    ),
    (
        "gate_pending_detected",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "weatherman",
                "confidence": "weak",
                "evidence_source": "delivery_video",
                "evidence": "Stands beside the screen.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 1.0,
                        "end_seconds": 9.0,
                    }
                ],
            },
        ),
        "pattern_gate_pending",
    ),
    ("confidence_bad", "main", setter((*DET0, "confidence"), "certain"), "confidence_invalid"),
    (
        "dimensions_wrong",
        "main",
        setter((*DET0, "dimensions"), ["Humor & Wit"]),
        "dimensions_mismatch",
    ),
    (
        "detection_engine_field",
        "main",
        setter((*DET0, "evidence_schema_version"), 2),
        "engine_owned_field",
    ),
    ("detection_unknown_field", "main", setter((*DET0, "notes"), "x"), "unknown_field"),
    ("detection_missing_evidence", "main", deleter((*DET0, "evidence")), "missing_required_field"),
    ("evidence_blank", "main", setter((*DET0, "evidence"), " "), "evidence_empty"),
    (
        "evidence_source_unknown",
        "main",
        setter((*DET0, "evidence_source"), "slides"),
        "evidence_source_unknown",
    ),
    (
        "evidence_source_uninspected",
        "german",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "lightsaber",
                "confidence": "weak",
                "evidence_source": "delivery_video",
                "evidence": "Pointer use.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 1.0,
                        "end_seconds": 9.0,
                    }
                ],
            },
        ),
        "evidence_source_not_inspected",
    ),
    (
        "strong_gate",
        "german",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "composite-animation",
                "confidence": "moderate",
                "evidence_source": "static_slides",
                "evidence": "Builds.",
                "evidence_citations": [
                    {
                        "source": "static_slides",
                        "channel": "slide_sequence",
                        "slide_numbers": [1, 2],
                    }
                ],
            },
        ),
        "evidence_source_gate_unsatisfied",
    ),
    (
        "strong_needs_pair",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "entertainment",
                "confidence": "strong",
                "evidence_source": "delivery_video",
                "evidence": "Laughter.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 1.0,
                        "end_seconds": 9.0,
                    }
                ],
            },
        ),
        "evidence_source_gate_unsatisfied",
    ),
    ("citations_empty", "main", setter((*DET0, "evidence_citations"), []), "citations_required"),
    (
        "metadata_only",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "dual-headed-monster",
                "confidence": "weak",
                "evidence_source": "transcript",
                "evidence": "Two voices.",
                "evidence_citations": [
                    {"source": "transcript", "channel": "talk_metadata", "field": "co_presenter"}
                ],
            },
            "antipatterns_detected",
        ),
        "gate_source_citation_missing",
    ),
    (
        "wrong_source_citation",
        "main",
        setter(
            (*DET0, "evidence_citations"),
            [{"source": "static_slides", "channel": "slides", "slide_numbers": [1]}],
        ),
        "gate_source_citation_missing",
    ),
    (
        "comparison_no_group",
        "main",
        with_comparison(None, ["static_slides", "native_deck"]),
        "comparison_sources_used_required",
    ),
    (
        "comparison_group_forbidden",
        "main",
        setter((*DET0, "evidence_sources_used"), ["transcript", "static_slides"]),
        "comparison_sources_used_forbidden",
    ),
    (
        "comparison_group_bad",
        "main",
        with_comparison(["static_slides", "source_comparison"], ["static_slides", "native_deck"]),
        "comparison_group_invalid",
    ),
    (
        # regression: objects in the group raised TypeError (unhashable) -> internal error
        "comparison_group_objects",
        "main",
        with_comparison([{}, {}], ["static_slides", "native_deck"]),
        "comparison_group_invalid",
    ),
    (
        "comparison_not_qualifying",
        "main",
        with_comparison(["static_slides", "transcript"], ["static_slides", "transcript"]),
        "comparison_group_not_qualifying",
    ),
    (
        "comparison_uninspected",
        "main",
        with_comparison(["static_slides", "native_deck"]),
        "comparison_not_inspected",
    ),
    (
        "comparison_member_uncited",
        "main",
        with_comparison(
            ["static_slides", "native_deck"],
            ["static_slides", "native_deck"],
            cite=("static_slides",),
        ),
        "comparison_member_uncited",
    ),
    # ---- citations
    ("citation_not_object", "main", setter(CIT0, "quote"), "citation_shape"),
    ("citation_unknown_channel", "main", setter((*CIT0, "channel"), "audio"), "citation_shape"),
    ("citation_missing_quote", "main", deleter((*CIT0, "quote")), "citation_shape"),
    ("citation_extra_field", "main", setter((*CIT0, "comment"), "x"), "citation_shape"),
    ("citation_line_start", "main", setter((*CIT0, "line_start"), 4), "engine_owned_field"),
    ("citation_hash", "main", setter((*CIT0, "artifact_sha256"), "b" * 64), "engine_owned_field"),
    ("citation_timestamps", "main", setter((*CIT0, "start_seconds"), 1.0), "engine_owned_field"),
    (
        "citation_source_channel",
        "main",
        setter(CIT0, {"source": "transcript", "channel": "slides", "slide_numbers": [1]}),
        "citation_channel_source_mismatch",
    ),
    (
        "citation_channel_not_permitted",
        "main",
        lambda r: po(r)["antipatterns_detected"][0]["evidence_citations"].append(
            {"source": "static_slides", "channel": "slides", "slide_numbers": [1]}
        ),
        "citation_channel_not_permitted",
    ),
    (
        "citation_source_uninspected",
        "german",
        lambda r: det(r)["evidence_citations"].append(
            {"source": "native_deck", "channel": "slides", "slide_numbers": [1]}
        ),
        "citation_source_not_inspected",
    ),
    (
        "timed_without_receipt",
        "main",
        setter(
            (PO, "antipatterns_detected", 0, "evidence_citations", 0, "channel"), "timed_transcript"
        ),
        "timed_transcript_unavailable",
    ),
    ("quote_three_words", "main", setter((*CIT0, "quote"), "the failure story"), "quote_too_short"),
    (
        "quote_not_in_transcript",
        "main",
        setter((*CIT0, "quote"), "nobody in this talk says these words"),
        "citation_quote_not_found",
    ),
    (
        "quote_ambiguous",
        "main",
        setter((*CIT0, "quote"), "the speaker moves on to topic"),
        "citation_quote_ambiguous",
    ),
    ("translation_missing", "german", lambda r: cit(r).pop("translation"), "translation_required"),
    ("translation_blank", "german", setter((*CIT0, "translation"), " "), "translation_required"),
    (
        "translation_declared_language",
        "main",
        setter(("structured_data", "delivery_language"), "ru"),
        "translation_required",
    ),
    (
        "slides_empty",
        "main",
        lambda r: det(r)["evidence_citations"].append(
            {"source": "static_slides", "channel": "slides", "slide_numbers": []}
        ),
        "slide_numbers_invalid",
    ),
    (
        "slides_zero",
        "main",
        lambda r: det(r)["evidence_citations"].append(
            {"source": "static_slides", "channel": "slides", "slide_numbers": [0]}
        ),
        "slide_numbers_invalid",
    ),
    (
        "slides_unsorted",
        "main",
        lambda r: det(r)["evidence_citations"].append(
            {"source": "static_slides", "channel": "slides", "slide_numbers": [3, 2]}
        ),
        "slide_numbers_invalid",
    ),
    (
        "sequence_gap",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "charred-trail",
                "confidence": "weak",
                "evidence_source": "native_deck",
                "evidence": "Dimmed bullets.",
                "evidence_citations": [
                    {"source": "native_deck", "channel": "slide_sequence", "slide_numbers": [3, 5]}
                ],
            },
        ),
        "slide_sequence_not_consecutive",
    ),
    (
        "sequence_single",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "charred-trail",
                "confidence": "weak",
                "evidence_source": "native_deck",
                "evidence": "Dimmed bullets.",
                "evidence_citations": [
                    {"source": "native_deck", "channel": "slide_sequence", "slide_numbers": [3]}
                ],
            },
        ),
        "slide_sequence_not_consecutive",
    ),
    (
        "slide_past_deck",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "charred-trail",
                "confidence": "weak",
                "evidence_source": "native_deck",
                "evidence": "Dimmed bullets.",
                "evidence_citations": [
                    {
                        "source": "native_deck",
                        "channel": "slide_sequence",
                        "slide_numbers": [12, 13],
                    }
                ],
            },
        ),
        "slide_number_out_of_range",
    ),
    (
        "video_interval_reversed",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "lightsaber",
                "confidence": "weak",
                "evidence_source": "delivery_video",
                "evidence": "Pointer use.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 9.0,
                        "end_seconds": 3.0,
                    }
                ],
            },
        ),
        "video_interval_invalid",
    ),
    (
        "video_interval_late",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "lightsaber",
                "confidence": "weak",
                "evidence_source": "delivery_video",
                "evidence": "Pointer use.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 1799.0,
                        "end_seconds": 1900.0,
                    }
                ],
            },
        ),
        "video_interval_out_of_range",
    ),
    (
        "metadata_field_general",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "dual-headed-monster",
                "confidence": "weak",
                "evidence_source": "transcript",
                "evidence": "Two voices.",
                "evidence_citations": [
                    {
                        "source": "transcript",
                        "channel": "transcript",
                        "quote": "we talk about the failure story",
                    },
                    {"source": "transcript", "channel": "talk_metadata", "field": "rhetoric_notes"},
                ],
            },
            "antipatterns_detected",
        ),
        "metadata_field_not_permitted",
    ),
    (
        "metadata_field_narrow",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "dual-headed-monster",
                "confidence": "weak",
                "evidence_source": "transcript",
                "evidence": "Two voices.",
                "evidence_citations": [
                    {
                        "source": "transcript",
                        "channel": "transcript",
                        "quote": "we talk about the failure story",
                    },
                    {"source": "transcript", "channel": "talk_metadata", "field": "title"},
                ],
            },
            "antipatterns_detected",
        ),
        "metadata_field_not_permitted",
    ),
    # ---- applicability
    (
        "assessment_missing",
        "main",
        lambda r: po(r)["applicability_assessments"].pop(0),
        "applicability_missing",
    ),
    (
        "assessment_duplicate",
        "main",
        lambda r: po(r)["applicability_assessments"].append(
            copy.deepcopy(po(r)["applicability_assessments"][0])
        ),
        "applicability_duplicate",
    ),
    (
        "assessment_unconditional",
        "main",
        lambda r: po(r)["applicability_assessments"].append(
            {
                "pattern_id": "narrative-arc",
                "result": "applicable",
                "evidence_source": "transcript",
                "evidence": "x",
                "evidence_citations": [
                    {
                        "source": "transcript",
                        "channel": "transcript",
                        "quote": "we talk about the failure story",
                    }
                ],
            }
        ),
        "applicability_unexpected",
    ),
    (
        # a video-extracted PDF is not absence-capable, so floodmarks' applicability gate
        # (transcript + static_slides) is incomplete and no assessment may be given
        "assessment_incomplete_gate",
        "video",
        lambda r: po(r)["applicability_assessments"].append(
            {
                "pattern_id": "floodmarks",
                "result": "applicable",
                "evidence_source": "static_slides",
                "evidence": "x",
                "evidence_citations": [
                    {"source": "static_slides", "channel": "slides", "slide_numbers": [1]}
                ],
            }
        ),
        "applicability_unexpected",
    ),
    (
        "assessment_result",
        "main",
        setter((PO, "applicability_assessments", 0, "result"), "maybe"),
        "applicability_result_invalid",
    ),
    (
        "assessment_condition_unknown",
        "main",
        setter((PO, "applicability_assessments", 0, "condition_id"), "no-such-condition"),
        "applicability_condition_unknown",
    ),
    (
        "assessment_condition_missing",
        "main",
        deleter((PO, "applicability_assessments", 0, "condition_id")),
        "applicability_condition_unknown",
    ),
    (
        "assessment_condition_on_applicable",
        "main",
        setter((PO, "applicability_assessments", 0, "result"), "applicable"),
        "applicability_condition_forbidden",
    ),
    (
        "assessment_no_citation",
        "main",
        setter((PO, "applicability_assessments", 0, "evidence_citations"), []),
        "citations_required",
    ),
    (
        "assessment_gate_source",
        "main",
        lambda r: assessment(r, "coda").update(
            evidence_source="native_deck",
            evidence_citations=[
                {"source": "native_deck", "channel": "slides", "slide_numbers": [1]}
            ],
        ),
        "evidence_source_gate_unsatisfied",
    ),
    # ---- not_evaluable
    (
        "ne_extra_field",
        "main",
        lambda r: po(r)["not_evaluable"][0].update(required_source_groups=[["delivery_video"]]),
        "engine_owned_field",
    ),
    (
        "ne_reason_unknown",
        "main",
        lambda r: po(r)["not_evaluable"][0].update(reason_code="not_observed"),
        "not_evaluable_reason_unknown",
    ),
    (
        "ne_reason_mismatch",
        "main",
        lambda r: ne(r, "weatherman").update(reason_code="missing_required_source_coverage"),
        "not_evaluable_reason_mismatch",
    ),
    (
        "ne_positive_only_absent",
        "main",
        lambda r: drop_ne(r, "lightsaber"),
        "not_evaluable_missing",
    ),
    ("ne_pending_absent", "main", lambda r: drop_ne(r, "weatherman"), "not_evaluable_missing"),
    (
        "ne_unexpected",
        "main",
        lambda r: po(r)["not_evaluable"].append(
            {"pattern_id": "soft-transitions", "reason_code": "missing_required_source_coverage"}
        ),
        "not_evaluable_unexpected",
    ),
    (
        "ne_duplicate",
        "main",
        lambda r: po(r)["not_evaluable"].append(copy.deepcopy(po(r)["not_evaluable"][0])),
        "not_evaluable_duplicate",
    ),
    (
        "ne_detected_too",
        "main",
        lambda r: po(r)["not_evaluable"].append(
            {"pattern_id": det(r)["pattern_id"], "reason_code": "missing_required_source_coverage"}
        ),
        "pattern_in_multiple_lanes",
    ),
    (
        "ne_unobservable",
        "main",
        lambda r: po(r)["not_evaluable"].append(
            {"pattern_id": "carnegie-hall", "reason_code": "source_gate_pending_owner_review"}
        ),
        "pattern_not_observable",
    ),
    (
        "ne_unknown_id",
        "main",
        lambda r: po(r)["not_evaluable"].append(
            {"pattern_id": "nope", "reason_code": "source_gate_pending_owner_review"}
        ),
        "pattern_unknown",
    ),
    (
        "ne_applicability_v4",
        "legacy4",
        lambda r: po(r)["not_evaluable"][0].update(
            reason_code="missing_applicability_source_coverage"
        ),
        "not_evaluable_reason_unknown",
    ),
    (
        "ne_applicability_gate",
        "video",
        lambda r: ne(r, "floodmarks").update(reason_code="missing_required_source_coverage"),
        "not_evaluable_reason_mismatch",
    ),
    # ---- score
    (
        "score_arithmetic",
        "main",
        setter((PO, "pattern_score", "score"), 9),
        "pattern_score_mismatch",
    ),
    (
        "score_counts",
        "main",
        setter((PO, "pattern_score", "patterns_used"), 0),
        "pattern_score_mismatch",
    ),
    ("score_shape", "main", setter((PO, "pattern_score"), 3), "pattern_score_shape"),
    ("score_float", "main", setter((PO, "pattern_score", "score"), 1.0), "pattern_score_shape"),
    # ---- catalog feedback
    ("feedback_lane_missing", "main", deleter((FEED, "tensions")), "catalog_feedback_lanes"),
    ("feedback_lane_extra", "main", setter((FEED, "praise"), []), "catalog_feedback_lanes"),
    (
        "feedback_entry_shape",
        "main",
        setter((FEED, "scoring_problems"), [{"issue": "x"}]),
        "feedback_entry_shape",
    ),
    (
        "feedback_polarity",
        "main",
        setter(
            (FEED, "unmatched_observations"),
            [
                {
                    "observation": "o",
                    "why_no_pattern_fits": "w",
                    "proposed_name": "new-move",
                    "proposed_polarity": "neutral",
                }
            ],
        ),
        "feedback_polarity_invalid",
    ),
    (
        "feedback_name_collides",
        "main",
        setter(
            (FEED, "unmatched_observations"),
            [
                {
                    "observation": "o",
                    "why_no_pattern_fits": "w",
                    "proposed_name": "bookends",
                    "proposed_polarity": "pattern",
                }
            ],
        ),
        "feedback_proposed_name_collides",
    ),
    (
        "feedback_tension_id",
        "main",
        setter(
            (FEED, "tensions"),
            [{"pattern_ids": ["bookends", "no-such-id"], "nature": "n", "evidence": "e"}],
        ),
        "feedback_unknown_pattern",
    ),
    (
        "feedback_pair_size",
        "main",
        setter(
            (FEED, "confusable_pairs"),
            [{"pattern_ids": ["bookends", "coda", "emergence"], "detail": "d"}],
        ),
        "feedback_entry_shape",
    ),
    (
        "feedback_definition_id",
        "main",
        setter(
            (FEED, "definition_problems"),
            [{"pattern_id": "bookend", "problem": "ambiguous", "detail": "d"}],
        ),
        "feedback_unknown_pattern",
    ),
    (
        "feedback_problem_kind",
        "main",
        setter(
            (FEED, "definition_problems"),
            [{"pattern_id": "bookends", "problem": "boring", "detail": "d"}],
        ),
        "feedback_entry_shape",
    ),
]


@pytest.mark.parametrize(("case", "base", "mutate", "code"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_case_reports_its_code(
    vault: Any, bases: dict[str, Any], case: str, base: str, mutate: Mutation, code: str
) -> None:
    ret = copy.deepcopy(bases[base])
    mutate(ret)
    report = run(vault, [ret])
    assert report["ok"] is False
    assert report["error"]["code"] == "returns_invalid"
    assert code in codes(report), (case, report["returns"][0]["errors"])


def test_an_unknown_pattern_id_or_talk_names_the_closest_valid_ones(
    vault: Any, bases: dict[str, Any]
) -> None:
    """A typo is reported with the nearest valid names; matching stays exact (issue 25)."""
    ret = copy.deepcopy(bases["main"])
    real = po(ret)["patterns_detected"][0]["pattern_id"]
    po(ret)["patterns_detected"][0]["pattern_id"] = real[:-1]
    errors = run(vault, [ret])["returns"][0]["errors"]
    unknown = [e for e in errors if e["code"] == "pattern_unknown"]
    assert unknown and f"did you mean {real!r}" in unknown[0]["message"], errors
    ret = copy.deepcopy(bases["main"])
    filename = ret["filename"]
    ret["filename"] = filename.replace(".md", "s.md")
    errors = run(vault, [ret])["returns"][0]["errors"]
    missing = [e for e in errors if e["code"] == "talk_not_found"]
    assert missing and f"did you mean {filename!r}" in missing[0]["message"], errors
    ret = copy.deepcopy(bases["main"])
    feedback = [{"pattern_id": "bookend", "problem": "ambiguous", "detail": "d"}]
    setter((FEED, "definition_problems"), feedback)(ret)
    errors = run(vault, [ret])["returns"][0]["errors"]
    unknown = [e for e in errors if e["code"] == "feedback_unknown_pattern"]
    assert unknown and "did you mean 'bookends'" in unknown[0]["message"], errors


def test_a_quote_found_nowhere_names_its_closest_line_and_character(
    vault: Any, bases: dict[str, Any]
) -> None:
    """The transcript says "failure story"; the quote says "failure stories" (issue 25)."""
    ret = copy.deepcopy(bases["main"])
    setter((*CIT0, "quote"), "we talk about the failure stories")(ret)
    errors = run(vault, [ret])["returns"][0]["errors"]
    missing = [e for e in errors if e["code"] == "citation_quote_not_found"]
    assert missing, errors
    assert "closest: transcript line 1" in missing[0]["message"]
    message = missing[0]["message"]
    assert "'i' (U+0069 LATIN SMALL LETTER I) where the transcript has 'y'" in message


def test_a_lane_conflict_says_which_row_to_remove(vault: Any, bases: dict[str, Any]) -> None:
    """A detected pattern the sources make evaluable keeps its detection (issue 25)."""
    ret = copy.deepcopy(bases["main"])
    pid = det(ret)["pattern_id"]
    po(ret)["not_evaluable"].append(
        {"pattern_id": pid, "reason_code": "missing_required_source_coverage"}
    )
    errors = run(vault, [ret])["returns"][0]["errors"]
    conflict = [e for e in errors if e["code"] == "pattern_in_multiple_lanes"]
    assert conflict, errors
    row = len(po(ret)["not_evaluable"]) - 1
    assert "remove this not_evaluable row" in conflict[0]["message"]
    assert f'["not_evaluable"][{row}]' in conflict[0]["message"]
    assert "patterns_detected" in conflict[0]["message"]


VALID_KEYS = ["main", "german", "video", "legacy1", "legacy2", "legacy3", "legacy4", "nosrc"]


@pytest.mark.parametrize("key", VALID_KEYS)
def test_valid_base_returns_pass(vault: Any, bases: dict[str, Any], key: str) -> None:
    report = run(vault, [bases[key]])
    assert report["ok"] is True, report["returns"][0]["errors"]
    assert "error" not in report
    generation = report["returns"][0]["pattern_scoring_generation"]
    if key in ("main", "german", "video"):
        assert generation == {"status": "current", "reasons": []}
    elif key == "nosrc":
        assert generation == {"status": "not_applicable", "reasons": []}
    else:
        assert generation["status"] == "legacy_unbaselineable"
        assert generation["reasons"] == sorted(generation["reasons"]) and generation["reasons"]


VALID_VARIANTS: list[tuple[str, str, Mutation]] = [
    (
        "timed_with_receipt",
        "video",
        setter(
            (PO, "antipatterns_detected", 0, "evidence_citations", 0, "channel"), "timed_transcript"
        ),
    ),
    ("legacy_v3_without_sources", "legacy3", lambda r: po(r).pop("evidence_sources")),
    ("legacy_v2_uncited", "legacy2", setter((*DET0, "evidence_source"), "delivery_video")),
    (
        "comparison_detection",
        "main",
        with_comparison(["static_slides", "native_deck"], ["static_slides", "native_deck"]),
    ),
    (
        "full_ledger",
        "main",
        both(
            set_ledger(),
            setter(("structured_data", "meme_count"), 3),
            lambda r: sd(r).update(background_color_sequence=["purple_halftone"] * 12),
        ),
    ),
    (
        "image_distribution",
        "main",
        lambda r: sd(r).update(
            image_source_distribution={"unknown": 9, "none": 3},
            image_source_distribution_basis=(
                "Unit: slide; dominant source by area; unverified origins count as unknown."
            ),
        ),
    ),
    ("adjacent_ranges", "main", setter((*SI, 0, "line_ranges"), [[1, 120], [121, 240]])),
    (
        "partial_ranges",
        "main",
        both(setter((*SI, 3, "time_ranges"), [[0, 600.0], [615.0, 1200.0]])),
    ),
    (
        "clear_fields",
        "main",
        setter(
            ("clear_fields",),
            ["verbatim_examples.jokes", "structured_data.slide_count", "slides_local_path"],
        ),
    ),
    ("date_only", "main", setter(("processed_date",), "2026-07-31")),
    ("aware_timestamp", "main", setter(("processed_date",), "2026-07-31T18:00:00Z")),
    (
        "extensions",
        "main",
        setter(("structured_data", "extensions"), {"lab": {"anything": [1, 2]}}),
    ),
    (
        "co_presenters",
        "main",
        lambda r: sd(r).update(co_presenter=True, co_presenters=["Ada Lovelace"]),
    ),
    (
        "metadata_supplement",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "dual-headed-monster",
                "confidence": "weak",
                "evidence_source": "transcript",
                "evidence": "Two voices.",
                "evidence_citations": [
                    {
                        "source": "transcript",
                        "channel": "transcript",
                        "quote": "we talk about the failure story",
                    },
                    {"source": "transcript", "channel": "talk_metadata", "field": "co_presenter"},
                ],
            },
            "antipatterns_detected",
        ),
    ),
    (
        "positive_only_detection",
        "main",
        lambda r: add_detection(
            r,
            {
                "pattern_id": "lightsaber",
                "confidence": "moderate",
                "evidence_source": "delivery_video",
                "evidence": "Pointer use.",
                "evidence_citations": [
                    {
                        "source": "delivery_video",
                        "channel": "video",
                        "start_seconds": 42.5,
                        "end_seconds": 48.0,
                    }
                ],
            },
        ),
    ),
    (
        "partial_video_cleared",
        "video",
        both(
            setter(("status",), "processed_partial"),
            deleter(("slides_local_path",)),
            setter(("clear_fields",), ["slides_local_path"]),
            lambda r: sd(r).update(
                video_extraction=td.manifest("VIDvid00001", VROOT, trusted=False)
            ),
            lambda r: strip_static(r),
        ),
    ),
]


def strip_static(r: dict[str, Any]) -> None:
    """Drop static_slides evidence from a video return (an untrusted manifest is context only)."""
    po(r)["evidence_sources"].remove("static_slides")
    po(r)["source_inspection"] = [
        x for x in po(r)["source_inspection"] if x["source"] != "static_slides"
    ]
    for lane in ("patterns_detected", "antipatterns_detected", "applicability_assessments"):
        po(r)[lane] = [x for x in po(r)[lane] if x["evidence_source"] != "static_slides"]
    p, a = len(po(r)["patterns_detected"]), len(po(r)["antipatterns_detected"])
    po(r)["pattern_score"] = {"patterns_used": p, "antipatterns_detected": a, "score": p - a}


@pytest.mark.parametrize(
    ("case", "base", "mutate"), VALID_VARIANTS, ids=[c[0] for c in VALID_VARIANTS]
)
def test_valid_variant_passes(
    vault: Any, bases: dict[str, Any], case: str, base: str, mutate: Mutation
) -> None:
    ret = copy.deepcopy(bases[base])
    mutate(ret)
    report = run(vault, [ret])
    assert report["ok"] is True, (case, report["returns"][0]["errors"])


def test_not_object_return(vault: Any) -> None:
    report = run(vault, [42])
    assert codes(report) == {"return_not_object"}


def test_duplicate_return_in_batch(vault: Any, bases: dict[str, Any]) -> None:
    report = run(vault, [bases["main"], bases["main"]])
    assert "duplicate_return" in codes(report)
    assert report["returns"][0]["ok"] is True and report["returns"][1]["ok"] is False


def test_mixed_batches_are_refused(vault: Any, bases: dict[str, Any]) -> None:
    report = run(vault, [bases["main"], bases["german"]])
    assert "batch_mixed_identity" in codes(report)
    assert report["ok"] is False


def test_empty_batch(vault: Any) -> None:
    report = run(vault, [])
    assert codes(report) == {"batch_empty"} and report["ok"] is False


def test_object_batch_keyed_by_filename(vault: Any, bases: dict[str, Any]) -> None:
    good = run(vault, {bases["main"]["filename"]: bases["main"]})
    assert good["ok"] is True
    bad = run(vault, {"wrong-key.md": bases["main"]})
    assert "batch_key_mismatch" in codes(bad)


def test_single_object_is_a_batch_of_one(vault: Any, bases: dict[str, Any]) -> None:
    report = run(vault, bases["main"])
    assert report["ok"] is True and report["returns"][0]["path"] == "$"


def test_future_claim_is_refused(vault: Any, bases: dict[str, Any], tmp_path: Path) -> None:
    """A stored claim of a future version: the owner read refuses the whole database;
    a ``Database`` value holding one anyway is still refused by the validator's claim check."""
    root, db, _ = vault
    future = td.future_claim_talk()
    document = copy.deepcopy(db.root)
    document["talks"].append(future)
    path = td.write_json(tmp_path / "tracking-database.json", document)
    with pytest.raises(DatabaseError) as refused:
        load_database(path)
    assert refused.value.code == "database_invalid"
    assert refused.value.context["owner_error"] == {
        "code": "unsupported_schema_version",
        "message": "queue claim schema_version 9 is not supported",
        "path": f'$["talks"][{len(document["talks"]) - 1}]["_queue_claim"]["schema_version"]',
    }
    ret = copy.deepcopy(bases["main"])
    ret["filename"] = future["filename"]
    report = run((root, td.unchecked_database(path), None), [ret])
    assert report["ok"] is False and report["error"]["code"] == "returns_invalid"
    assert "claim_version_unknown" in codes(report)
