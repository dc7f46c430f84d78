"""A completed, receipt-bound batch for the writer's tests (not a test module).

The database is what ``rvault-returns persist`` leaves behind, written here
in the persisted shape the specification gives (talk schema 5, evidence
ledger v2 with engine-enriched citations and inspection rows, completed v5
claims carrying ``result_payload_sha256`` of the exact return). It is read
back through the tracking-db owner read like any vault, so a shape the owner
rejects fails these tests. ``conformance/`` renders a real persist run.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rvault_contracts.canonical import payload_sha256
from rvault_returns_persistence.api import load_catalog
from rvault_testkit.tracking_db.root import root_database

RUN_ID = "reparse-2026-07"
BATCH_ID = "25"
CLAIMED_AT = "2026-07-31T18:00:00+00:00"
PROCESSED = "2026-07-31T19:00:00+00:00"
HEX_B = "b" * 64
HEX_C = "c" * 64
HEX_D = "d" * 64


def feedback() -> dict[str, Any]:
    return {
        "unmatched_observations": [
            {
                "observation": "A recurring hand-drawn map marks progress",
                "why_no_pattern_fits": "breadcrumbs needs a visible agenda; this map has none",
                "proposed_name": "progress-map",
                "proposed_polarity": "pattern",
            }
        ],
        "tensions": [],
        "definition_problems": [],
        "scoring_problems": [],
        "confusable_pairs": [
            {"pattern_ids": ["bookends", "callback-humor"], "detail": "both close on the opener"}
        ],
    }


def make_return(filename: str, *, status: str = "processed", language: str = "en") -> dict:
    ret: dict[str, Any] = {
        "filename": filename,
        "return_schema_version": 5,
        "queue_claim": {"run_id": RUN_ID, "batch_id": BATCH_ID, "reprocess_generation": 1},
        "status": status,
    }
    if status.startswith("skipped_"):
        return ret
    ret.update(
        {
            "slide_source": "pdf",
            "slides_local_path": "slides/1AbCdEfGhIjK.pdf",
            "rhetoric_notes": "Opens with a failure story and keeps a three-act arc.\n\n"
            "The second act leans on a live demo.",
            "areas_for_improvement": "The close arrives abruptly (antipattern shortchanged, mild).",
            "transcript_source": "youtube_auto",
            "structured_data": {"delivery_language": language, "opening_type": "story"},
            "verbatim_examples": {"opening_lines": ["Let me tell you about my worst deploy."]},
            "adherence_assessment": "",
            "new_patterns": "",
            "summary_updates": "",
            "pattern_observations": {"evidence_sources": ["transcript"]},
            "catalog_feedback": feedback(),
        }
    )
    return ret


def persisted_talk(ret: dict[str, Any], fingerprint: str, names: list[str]) -> dict[str, Any]:
    """The effective talk persist writes for ``ret`` (claim completed with its receipt)."""
    filename = ret["filename"]
    claim = {
        "schema_version": 5,
        "run_id": RUN_ID,
        "batch_id": BATCH_ID,
        "claimed_at": CLAIMED_AT,
        "previous_status": "pending",
        "reprocess_generation": 1,
        "required_return_schema_version": 5,
        "adherence_baseline": {
            "schema_version": 2,
            "as_of": CLAIMED_AT,
            "scope": "global",
            "active_batch_excluded": True,
            "excluded_filenames": sorted(names),
            "eligible_statuses": ["processed", "processed_partial"],
            "pattern_scoring_generation_status": "current",
            "pattern_scoring_generation_reasons": [],
            "pattern_catalog_fingerprint": fingerprint,
            "pattern_scoring_schema_version": 5,
            "eligible_talk_count": 0,
            "opportunity_coverage_identity": None,
            "raw_score_comparison_status": "unavailable",
            "raw_score_comparison_reason": "no_eligible_talks",
            "scored_talk_count": 0,
            "pattern_score_sum": 0,
            "average_pattern_score": None,
        },
        "state": "completed",
        "released_at": PROCESSED,
        "release_reason": "completed",
        "result_status": ret["status"],
        "result_payload_sha256": payload_sha256(ret),
    }
    talk: dict[str, Any] = {
        "schema_version": 5,
        "filename": filename,
        "title": f"Talk {filename[:-3]}",
        "conference": "Example Conf",
        "date": "2024-04-10",
        "status": ret["status"],
        "reprocess_generation": 1,
        "_queue_claim": claim,
        "_queue_claim_history": [],
    }
    if ret["status"].startswith("skipped_"):
        return talk
    english = ret["structured_data"]["delivery_language"] == "en"
    quote = (
        "the worst deploy of my life" if english else "die schlimmste Bereitstellung meines Lebens"
    )
    talk.update(
        {
            "transcript_source": "youtube_auto",
            "transcript_path": f"transcripts/{filename}.txt",
            "slide_source": ret["slide_source"],
            "slides_local_path": ret["slides_local_path"],
            "rhetoric_notes": ret["rhetoric_notes"],
            "areas_for_improvement": ret["areas_for_improvement"],
            "adherence_assessment": "",
            "processed_date": PROCESSED,
            "structured_data": {
                **ret["structured_data"],
                "per_slide_visual": [
                    {
                        "slide_number": n,
                        "background_color_name": "purple_halftone",
                        "content_type": "title" if n == 1 else "content_bullets",
                        "image_composition": "none",
                        "has_speech_bubble": False,
                        "has_starburst": n == 2,
                        "has_footer": True,
                    }
                    for n in (1, 2)
                ],
                "slide_count": 2,
                "image_source_distribution": {"speaker_created": 1, "unknown": 1},
                "image_source_distribution_basis": "Unit: slide; dominant image source.",
                "typography_observations": {"title_font_description": "hand-lettered | comic"},
            },
            # Preserved from a prior snapshot: the return omitted this lane.
            "verbatim_examples": {
                **ret["verbatim_examples"],
                "jokes": ["Production is just staging with consequences."],
            },
            "delivery_language": ret["structured_data"]["delivery_language"],
            "opening_type": "story",
            "slide_count": 2,
            "pattern_score": 1,
            "pattern_scoring_generation_status": "current",
            "pattern_scoring_generation_reasons": [],
            "pattern_scoring_schema_version": 5,
            "pattern_catalog_fingerprint": fingerprint,
            "pattern_observations": {
                "evidence_schema_version": 2,
                "evidence_sources": ["transcript"],
                "source_inspection": [
                    {
                        "source": "transcript",
                        "line_ranges": [[1, 30]],
                        "line_count": 30,
                        "coverage_complete": True,
                        "absence_capability_complete": True,
                        "absence_capability_reason": "authorized_transcript",
                        "artifact_root": "vault",
                        "artifact_path": f"transcripts/{filename}.txt",
                        "artifact_sha256": HEX_B,
                        "quality_artifact_path": f"transcripts/{filename}.quality.json",
                        "quality_artifact_sha256": HEX_C,
                    }
                ],
                "pattern_ids": ["narrative-arc"],
                "antipattern_ids": [],
                "not_evaluable_ids": ["crawling-credits"],
                "pattern_score": 1,
                "patterns_detected": [
                    {
                        "pattern_id": "narrative-arc",
                        "dimensions": ["Narrative Structure"],
                        "confidence": "strong",
                        "evidence_source": "transcript",
                        "evidence": "Setup, complication and resolution in order.",
                        "evidence_citations": [
                            {
                                "source": "transcript",
                                "channel": "transcript",
                                "quote": quote,
                                **(
                                    {}
                                    if english
                                    else {"translation": "the worst deploy of my life"}
                                ),
                                "line_start": 3,
                                "line_end": 3,
                                "artifact_root": "vault",
                                "artifact_path": f"transcripts/{filename}.txt",
                                "artifact_sha256": HEX_B,
                            }
                        ],
                    }
                ],
                "antipatterns_detected": [],
                "applicability_assessments": [],
                "pattern_outcomes": [
                    {"pattern_id": "crawling-credits", "outcome": "not_evaluable"},
                    {"pattern_id": "narrative-arc", "outcome": "detected"},
                ],
                "opportunity_coverage_identity": HEX_D,
                "not_evaluable": [
                    {
                        "pattern_id": "crawling-credits",
                        "reason_code": "missing_required_source_coverage",
                        "dimensions": ["Closing Pattern", "Slide Design Patterns"],
                        "required_source_groups": [["static_slides"]],
                        "available_source_groups": [],
                        "capability_fact": {
                            "absence_capable_sources": ["transcript"],
                            "complete_sources": ["transcript"],
                            "inspected_sources": ["transcript"],
                        },
                    }
                ],
            },
        }
    )
    return talk


def database(talks: list[dict[str, Any]]) -> dict[str, Any]:
    return root_database(talks)


@dataclass
class Batch:
    root: Path
    db: Path
    returns_path: Path
    outdir: Path
    returns: list[dict[str, Any]]
    talks: list[dict[str, Any]]

    def write_db(self) -> None:
        self.db.write_text(json.dumps(database(self.talks), indent=2, sort_keys=True) + "\n")

    def write_returns(self, returns: Any = None) -> None:
        payload = self.returns if returns is None else returns
        self.returns_path.write_text(json.dumps(payload, indent=2) + "\n")

    def talk(self, filename: str) -> dict[str, Any]:
        return next(t for t in self.talks if t["filename"] == filename)


def completed_batch(
    root: Path,
    names: tuple[str, ...] = ("2024-01-01-a.md", "2024-02-01-b.md"),
    *,
    skipped: tuple[str, ...] = (),
    language: str = "en",
) -> Batch:
    fingerprint = load_catalog().fingerprint
    vault = root / "vault"
    (vault / "analyses").mkdir(parents=True)
    everyone = [*names, *skipped]
    returns = [make_return(n, language=language) for n in names]
    returns += [make_return(n, status="skipped_no_sources") for n in skipped]
    talks = [persisted_talk(copy.deepcopy(r), fingerprint, everyone) for r in returns]
    batch = Batch(
        root,
        vault / "tracking-database.json",
        root / "returns.json",
        vault / "analyses",
        returns,
        talks,
    )
    batch.write_db()
    batch.write_returns()
    return batch


def make_legacy_v2(batch: Batch, filename: str) -> None:
    """Turn one member into a persisted v2 replay: claim v2 receipt, legacy generation."""
    ret = next(r for r in batch.returns if r["filename"] == filename)
    ret["return_schema_version"] = 2
    del ret["catalog_feedback"]
    talk = batch.talk(filename)
    old = talk["_queue_claim"]
    keep = ("run_id", "batch_id", "claimed_at", "previous_status", "reprocess_generation")
    claim = {key: old[key] for key in keep}
    claim.update(
        schema_version=2,
        state="completed",
        released_at=old["released_at"],
        release_reason="completed",
        result_status=ret["status"],
        result_payload_sha256=payload_sha256(ret),
    )
    talk["_queue_claim"] = claim
    talk["schema_version"] = 4
    talk["pattern_scoring_generation_status"] = "legacy_unbaselineable"
    talk["pattern_scoring_generation_reasons"] = [
        "legacy_uncited_detections",
        "return_schema_v2_replay_only",
        "source_inspection_absent",
    ]
    del talk["pattern_scoring_schema_version"], talk["pattern_catalog_fingerprint"]
    talk["adherence_assessment"] = "Uses more callbacks than the 2023 talks did."
    po = talk["pattern_observations"]
    for key in (
        "evidence_schema_version",
        "source_inspection",
        "pattern_outcomes",
        "opportunity_coverage_identity",
        "not_evaluable",
        "not_evaluable_ids",
        "applicability_assessments",
    ):
        po.pop(key, None)
    po["patterns_detected"][0]["evidence_citations"] = []
    batch.write_db()
    batch.write_returns()
