"""Reference documents built from the specification's example database.

The spec's structural example (with its ``_comment_*`` keys) is the one
database every reader must accept, so tests, the conformance corpus and the
benchmark build from it instead of inventing shapes. Placeholder prose in the
example ("64 lowercase hex characters", enum alternatives) is replaced by a
concrete valid value; everything else is kept as published, except the
evidence ledger: the example's ``pattern_observations`` is a sketch (its
inspection row has no quality receipt or absence capability, its citations
no line numbers), and the owner read checks a ledger v2 against its
registered ``pattern-observations`` contract, so the ledger here is the shape
``rvault-returns persist`` writes (:func:`example_ledger`). The published
sketch itself is :func:`spec_sketch_ledger` (verbatim): a database carrying
it must still read, with that one talk's ledger reported per talk.
"""

from __future__ import annotations

import copy
from typing import Any

HEX_A = "a" * 64
HEX_B = "b" * 64
HEX_C = "c" * 64
HEX_D = "d" * 64
HEX_E = "e" * 64
EXAMPLE_FILENAME = "2024-04-10-talk-slug.md"

_COMMENT_SCHEMA_VERSION = (
    "Database schema v1 is owner-migrated by vault-ingress. A missing talk record version is the "
    "historical implicit-v1 lineage. v2 makes transcript_source optional. Two incompatible v3 "
    "lineages were emitted; v4 is their source-located union and remains archival with evidence "
    "ledger v1. V5 adds applicability assessments, exhaustive outcomes, opportunity-coverage "
    "identity, evidence ledger v2, and current scoring schema v5. Root migration preserves all "
    "historical evidence and never synthesizes v5 outcomes."
)
_COMMENT_ABSENT_TRANSCRIPT_SOURCE = (
    "Absent transcript_source: the key may be MISSING on a talk, and missing is meaningful — it "
    "means provenance is unknown, not that no transcript exists (that is the explicit value "
    "`none`). Writers MUST NOT backfill a guess; `manual` in particular asserts a human produced "
    "it. Readers gauging transcript reliability MUST treat absent as unknown and MUST NOT default "
    "it to any value."
)


def example_config() -> dict[str, Any]:
    return {
        "schema_version": 2,
        "vault_root": "~/.claude/rhetoric-knowledge-vault",
        "pptx_source_dir": "/native/absolute/path/to/Presentations",
        "python_path": "/path/to/python3",
        "template_skip_patterns": ["template"],
        "pptx_directory_exclusions": ["example-tool-cache"],
        "shownotes": {
            "enabled": True,
            "source": {
                "type": "local_jekyll",
                "path_or_url": "/path/to/shownotes-site-root",
                "talks_subdir": "_talks",
            },
            "url": {"base": "https://speaking.example.com", "template": "/{slug}/"},
            "thumbnail_path_template": "assets/images/thumbnails/{slug}-thumbnail.png",
            "slug_convention": {"template": "{venue-compact}{yy}-{short-id}", "examples": []},
            "ssg_template_pointer": "{source.path_or_url}/_layouts/default.html",
        },
        "clarification_sessions_completed": 0,
    }


def example_claim(filename: str = EXAMPLE_FILENAME) -> dict[str, Any]:
    """The spec's active v5 claim with its v2 adherence baseline."""
    return {
        "schema_version": 5,
        "run_id": "reparse-2026-07",
        "batch_id": "25",
        "claimed_at": "2026-07-31T18:00:00+00:00",
        "previous_status": "needs-reprocessing",
        "reprocess_generation": 1,
        "required_return_schema_version": 5,
        "adherence_baseline": {
            "schema_version": 2,
            "as_of": "2026-07-31T18:00:00+00:00",
            "scope": "global",
            "active_batch_excluded": True,
            "excluded_filenames": [filename],
            "eligible_statuses": ["processed", "processed_partial"],
            "pattern_scoring_generation_status": "current",
            "pattern_scoring_generation_reasons": [],
            "pattern_catalog_fingerprint": HEX_A,
            "pattern_scoring_schema_version": 5,
            "eligible_talk_count": 25,
            "opportunity_coverage_identity": HEX_C,
            "raw_score_comparison_status": "available",
            "raw_score_comparison_reason": None,
            "scored_talk_count": 25,
            "pattern_score_sum": 170,
            "average_pattern_score": 6.8,
        },
        "state": "claimed",
    }


def example_ledger(
    pattern_outcomes: list[dict[str, str]], *, youtube_id: str = "dQw4w9WgXcQ"
) -> dict[str, Any]:
    """A ``pattern-observations`` v2 ledger as persist writes it, over ``pattern_outcomes``.

    Transcript-only: one complete, absence-capable inspection row bound to
    the transcript and its quality receipt, one canonical (line-located)
    citation per detection.
    """
    transcript = f"transcripts/{youtube_id}.txt"
    detected = [o["pattern_id"] for o in pattern_outcomes if o["outcome"] == "detected"]
    return {
        "evidence_schema_version": 2,
        "evidence_sources": ["transcript"],
        "source_inspection": [
            {
                "source": "transcript",
                "line_ranges": [[1, 240]],
                "line_count": 240,
                "coverage_complete": True,
                "absence_capability_complete": True,
                "absence_capability_reason": "authorized_transcript",
                "artifact_root": "vault",
                "artifact_path": transcript,
                "artifact_sha256": HEX_B,
                "quality_artifact_path": f"transcripts/{youtube_id}.quality.json",
                "quality_artifact_sha256": HEX_C,
            }
        ],
        "pattern_ids": detected,
        "antipattern_ids": [],
        "not_evaluable_ids": [
            o["pattern_id"] for o in pattern_outcomes if o["outcome"] == "not_evaluable"
        ],
        "pattern_score": len(detected),
        "patterns_detected": [
            {
                "pattern_id": pid,
                "confidence": "strong",
                "dimensions": ["Opening Pattern"],
                "evidence": "The speaker names the failure before the thesis.",
                "evidence_source": "transcript",
                "evidence_citations": [
                    {
                        "source": "transcript",
                        "channel": "transcript",
                        "artifact_root": "vault",
                        "artifact_path": transcript,
                        "artifact_sha256": HEX_B,
                        "line_start": 12,
                        "line_end": 12,
                        "quote": "the worst deploy of my life",
                    }
                ],
            }
            for pid in detected
        ],
        "antipatterns_detected": [],
        "applicability_assessments": [],
        "pattern_outcomes": sorted(pattern_outcomes, key=lambda o: o["pattern_id"]),
        "opportunity_coverage_identity": HEX_D,
        "not_evaluable": [],
    }


def spec_sketch_ledger() -> dict[str, Any]:
    """The example database's ``pattern_observations`` exactly as the spec prints it.

    It breaks the ``pattern-observations`` v2 contract (the inspection row has
    no quality receipt or absence capability), which the owner read reports as
    that talk's ``ledger_schema_violation`` warnings, never a refusal.
    """
    return {
        "evidence_schema_version": 2,
        "evidence_sources": ["transcript"],
        "source_inspection": [
            {
                "source": "transcript",
                "line_ranges": [[1, 240]],
                "line_count": 240,
                "coverage_complete": True,
                "artifact_root": "vault",
                "artifact_path": "transcripts/dQw4w9WgXcQ.txt",
                "artifact_sha256": HEX_B,
            }
        ],
        "pattern_ids": [],
        "antipattern_ids": [],
        "not_evaluable_ids": [],
        "pattern_score": 0,
        "patterns_detected": [],
        "antipatterns_detected": [],
        "applicability_assessments": [],
        "pattern_outcomes": [
            {"pattern_id": "another-catalog-id", "outcome": "not_evaluable"},
            {"pattern_id": "one-catalog-id", "outcome": "undetected"},
        ],
        "opportunity_coverage_identity": HEX_D,
        "not_evaluable": [],
    }


def example_source_identity(youtube_id: str) -> dict[str, Any]:
    """The example talk's ``source_identity`` v1: what YouTube said about the video."""
    return {
        "schema_version": 1,
        "provider": "youtube",
        "video_id": youtube_id,
        "title": "Title recorded at the source",
        "uploader": "Conference Channel",
        "uploader_id": "@conference",
        "speakers": ["Speaker Name"],
        "recorded_date": "2024-04-10",
        "upload_date": "2024-04-11",
        "duration_seconds": 2700,
        "webpage_url": f"https://www.youtube.com/watch?v={youtube_id}",
        "webpage_video_id": youtube_id,
        "captured_at": "2026-07-31T12:00:00Z",
    }


def example_source_rejections() -> list[dict[str, Any]]:
    """The example talk's one rejected source: a trailer, not the delivery."""
    return [
        {
            "schema_version": 1,
            "source_type": "video",
            "url": "https://www.youtube.com/watch?v=AAAAAAAAAAA",
            "reason": "non_delivery_clip",
            "evidence": "a 40-second trailer, not the recorded delivery",
            "verified_at": "2026-07-30T09:00:00+00:00",
        }
    ]


def example_talk(
    filename: str = EXAMPLE_FILENAME,
    *,
    claimed: bool = False,
    outcomes: int = 2,
    youtube_id: str = "dQw4w9WgXcQ",
) -> dict[str, Any]:
    """The spec's v5 talk. ``claimed`` keeps the example's active claim;
    otherwise the talk is processed with no claim. ``outcomes`` sizes the
    exhaustive outcome matrix (a realistic catalog has dozens of entries)."""
    pattern_outcomes = [
        {
            "pattern_id": f"catalog-pattern-{i:03d}",
            "outcome": ("detected", "undetected", "not_evaluable")[i % 3],
        }
        for i in range(outcomes)
    ]
    detected = [o["pattern_id"] for o in pattern_outcomes if o["outcome"] == "detected"]
    talk: dict[str, Any] = {
        "filename": filename,
        "title": "Talk Title",
        "conference": "Name",
        "date": "2024-04-10",
        "slides_url": "https://drive.google.com/file/d/1AbCdEfGhIjK/view",
        "video_url": f"https://www.youtube.com/watch?v={youtube_id}",
        "youtube_id": youtube_id,
        "google_drive_id": "1AbCdEfGhIjK",
        "source_identity": example_source_identity(youtube_id),
        "source_rejections": example_source_rejections(),
        "pptx_path": "Conference/Year/Talk Name.pptx",
        "schema_version": 5,
        "transcript_source": "youtube_auto",
        "transcript_path": f"transcripts/{youtube_id}.txt",
        "slide_source": "pptx",
        "slides_local_path": f"slides/{youtube_id}.pdf",
        "pptx_visual_status": "extracted",
        "status": "processed",
        "reprocess_reason": None,
        "reprocess_generation": 1,
        "_queue_claim": None,
        "_queue_claim_history": [],
        "rhetoric_notes": "Opens with a personal failure story, then a three-act arc. " * 4,
        "areas_for_improvement": "Transitions between acts rely on the same verbal bridge. " * 2,
        "structured_data": {"opening_type": "story", "closing_type": "callback"},
        "verbatim_examples": {"opening": ["Let me tell you about the worst deploy of my life."]},
        "adherence_assessment": "",
        "processed_date": "2026-07-31T19:00:00+00:00",
        "_comment_queryable_scalars": (
            "Promoted from the subagent return by scripts/persist-results.py (PROMOTE list) — do "
            "NOT hand-map in Step 4."
        ),
        "co_presenter": False,
        "co_presenters": [],
        "delivery_language": "en",
        "slide_count": 42,
        "slide_design_style": "minimal",
        "illustration_style": None,
        "opening_type": "story",
        "closing_type": "callback",
        "narrative_arc_type": "three_act",
        "audience_interaction_count": 2,
        "pattern_score": len(detected),
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_scoring_schema_version": 5,
        "pattern_catalog_fingerprint": HEX_A,
        "pattern_observations": example_ledger(pattern_outcomes, youtube_id=youtube_id),
    }
    if claimed:
        talk["status"] = "reprocessing-inflight"
        talk["_queue_claim"] = example_claim(filename)
    return talk


def example_pptx() -> dict[str, Any]:
    return {
        "schema_version": 2,
        "pptx_path": "Conference/Year/Talk Name.pptx",
        "talk_filename": EXAMPLE_FILENAME,
        "matched": True,
        "slide_count": 60,
        "visual_extracted": True,
        "visual_evidence": {
            "outcome": "succeeded",
            "extractor_schema_version": 4,
            "pipeline_version": "1.5.0",
            "source_fingerprint": {"algorithm": "sha256", "digest": HEX_E, "size_bytes": 123456},
            "artifact": {"path": "pptx-extraction/talk-name.json", "sha256": HEX_B},
        },
    }


def example_pptx_failed() -> dict[str, Any]:
    return {
        "schema_version": 2,
        "pptx_path": "Conference/Year/Broken.pptx",
        "talk_filename": None,
        "matched": False,
        "slide_count": 0,
        "visual_extracted": False,
        "visual_evidence": {
            "outcome": "failed",
            "extractor_schema_version": 4,
            "pipeline_version": "1.5.0",
            "source_fingerprint": {"algorithm": "sha256", "digest": HEX_E, "size_bytes": 123456},
            "artifact": None,
        },
    }


def example_qr() -> dict[str, Any]:
    return {
        "schema_version": 2,
        "talk_slug": "arc-of-ai",
        "target_url": "https://speaking.example.com/arc-of-ai/",
        "shortener": "bitly",
        "short_path": "arc-of-ai",
        "short_url": "https://bit.ly/arc-of-ai",
        "shortener_link_id": "bit.ly/arc-of-ai",
        "qr_png_rel_path": "arc-of-ai-qr-ffffff.png",
        "artifacts": [
            {
                "path": "arc-of-ai-qr-ffffff.png",
                "path_root": "deck_dir",
                "sha256": HEX_C,
                "bg_hex": "ffffff",
            },
            {
                "path": "arc-of-ai-qr-000000.png",
                "path_root": "deck_dir",
                "sha256": HEX_D,
                "bg_hex": "000000",
            },
        ],
        "created_at": "2026-04-15",
        "updated_at": "2026-04-15",
    }


def example_resource() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "talk_slug": "arc-of-ai",
        "item_count": 12,
        "category_breakdown": {"urls": 7, "repos": 3, "books_papers": 2},
    }


def example_thumbnail() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "talk_slug": "arc-of-ai",
        "youtube_url": "https://youtube.com/watch?v=dQw4w9WgXcQ",
        "source_slide_num": 15,
        "speaker_photo_used": "photos/speaker-headshot.png",
        "thumbnail_path": "illustrations/thumbnail.png",
        "shownotes_thumbnail_path": "assets/images/thumbnails/arc-of-ai-thumbnail.png",
        "dimensions": "1280x720",
        "file_size_kb": 185,
        "created_at": "2026-04-20",
        "approved": True,
    }


def example_confirmed_intent() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "pattern": "delayed_self_introduction",
        "intent": "deliberate",
        "rule": "Use two-phase introduction",
        "note": "Speaker-confirmed intent",
    }


def example_goal(version: int = 2) -> dict[str, Any]:
    goal: dict[str, Any] = {
        "schema_version": version,
        "id": "goal-001",
        "issue": "Too many filler transitions",
        "kind": "antipattern",
        "antipattern_id": "verbal-filler-bridge",
        "metric": "detections per talk",
        "baseline_value": 3,
        "target": 1,
        "set_date": "2026-05-01",
        "set_by": "speaker",
        "status": "active",
        "current_value": None,
        "last_checked": None,
        "checked_by": None,
        "verification_state": "pending",
        "verification_reasons": [],
        "supersedes_goal_id": None,
    }
    if version == 2:
        baseline = copy.deepcopy(example_claim()["adherence_baseline"])
        baseline["active_batch_excluded"] = False
        baseline["excluded_filenames"] = []
        goal["baseline_provenance"] = {"lane": "pattern_scoring", "pattern_baseline": baseline}
    return goal


def example_database(*, claimed: bool = True) -> dict[str, Any]:
    """The spec's example database (current root v1, config v2)."""
    return {
        "schema_version": 1,
        "config": example_config(),
        "talks": [example_talk(claimed=claimed)],
        "_comment_schema_version": _COMMENT_SCHEMA_VERSION,
        "_comment_absent_transcript_source": _COMMENT_ABSENT_TRANSCRIPT_SOURCE,
        "pptx_catalog": [example_pptx()],
        "_comment_pptx_catalog_failed": example_pptx_failed(),
        "qr_codes": [example_qr()],
        "resources": [example_resource()],
        "thumbnails": [example_thumbnail()],
        "confirmed_intents": [example_confirmed_intent()],
        "improvement_goals": [],
    }


def realistic_database(talk_count: int, *, outcomes: int = 40) -> dict[str, Any]:
    """A valid current database of processed v5 talks (benchmarks)."""
    database = example_database(claimed=False)
    database["talks"] = [
        example_talk(
            f"{2014 + i % 12}-{1 + i % 12:02d}-{1 + i % 28:02d}-talk-{i:05d}.md",
            outcomes=outcomes,
            youtube_id=f"yt{i:09d}",
        )
        for i in range(talk_count)
    ]
    return database
