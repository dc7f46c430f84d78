"""A v5 return skeleton for one talk's active claim.

The scaffold does the bookkeeping a worker should never improvise: the claim
identity copied exactly, inspection ranges covering each artifact that
exists, empty feedback lanes, and a not_evaluable row for every catalog
entry whose gate the available sources cannot satisfy. The worker then adds
prose, observations and the applicability assessments the validator asks
for; the pattern score is kept consistent with empty detection lanes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rvault_tracking_db import api as tracking

from rvault_returns_persistence.artifacts import TalkArtifacts
from rvault_returns_persistence.canonical_ledger import absence_capability
from rvault_returns_persistence.catalog import Catalog, CatalogEntry, Gate
from rvault_returns_persistence.checks.inspection import Inspection, absence_capable
from rvault_returns_persistence.checks.protocol import expected_reason
from rvault_returns_persistence.gates import applicability_complete, unmet_alternatives
from rvault_returns_persistence.refusals import HintedRefusal
from rvault_returns_persistence.vocabulary import (
    FEEDBACK_LANES,
    QUEUE_CLAIM_KEYS,
    SLIDE_SOURCES,
    TRANSCRIPT_SOURCES,
)


class ScaffoldError(HintedRefusal):
    """The talk cannot be scaffolded (a ``cli-failure`` refusal)."""

    HINT = (
        "claim the talk first (`rvault-db queue DB claim ...`; a legacy lease is recovered "
        "and reclaimed as a v5 generation), then scaffold"
    )


def _inspection(
    found: TalkArtifacts, slide_source: str | None
) -> tuple[list[dict[str, Any]], Inspection]:
    records: list[dict[str, Any]] = []
    inspection = Inspection()
    if found.transcript_lines:
        records.append({"source": "transcript", "line_ranges": [[1, found.transcript_lines]]})
        inspection.complete.add("transcript")
    if found.pdf_pages:
        records.append({"source": "static_slides", "page_ranges": [[1, found.pdf_pages]]})
        inspection.complete.add("static_slides")
    if found.deck_slides:
        records.append({"source": "native_deck", "page_ranges": [[1, found.deck_slides]]})
        inspection.complete.add("native_deck")
    if found.video_path is not None and found.video_duration:
        records.append({"source": "delivery_video", "time_ranges": [[0, found.video_duration]]})
        inspection.complete.add("delivery_video")
    inspection.inspected = set(inspection.complete)
    inspection.declared = set(inspection.complete)
    inspection.capable = absence_capable(
        inspection.complete, found.pdf_is_video_extracted, slide_source
    )
    return records, inspection


def build_scaffold(
    talk: dict[str, Any],
    catalog: Catalog,
    found: TalkArtifacts,
    stored_manifest: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The skeleton and the ids that still need an applicability assessment.

    ``stored_manifest`` is the video owner's manifest on disk, already judged
    trusted: it lets a first return of a talk whose record names no
    slide_source yet start from ``video_extracted`` with the manifest copied,
    the way the worker instructions ask for a promoted slide PDF.
    """
    claim = tracking.active_claim(talk)
    if claim is None:
        raise ScaffoldError(
            "claim_not_active", "the talk has no active (claimed) queue claim", "$._queue_claim"
        )
    if tracking.authorized_return_versions(claim) != (5,):
        raise ScaffoldError(
            "claim_not_v5",
            "only a claim-v5 generation authorizes a fresh "
            "return v5; recover the lease and reclaim",
            "$._queue_claim.schema_version",
        )
    slide_source = talk.get("slide_source") if isinstance(talk.get("slide_source"), str) else None
    if slide_source is None:
        slide_source = _derived_slide_source(found, stored_manifest)
    records, inspection = _inspection(found, slide_source)
    not_evaluable: list[dict[str, str]] = []
    needs_assessment: list[str] = []
    for entry in sorted(catalog.observable(), key=lambda e: e.id):
        if (
            entry.conditional
            and not entry.pending_owner_review
            and applicability_complete(entry.applicability_evaluable_from, inspection.capable)
        ):
            needs_assessment.append(entry.id)
            continue
        reason = expected_reason(entry, 5, inspection, {})
        if reason is not None:
            not_evaluable.append({"pattern_id": entry.id, "reason_code": reason})
    skeleton: dict[str, Any] = {
        "filename": talk["filename"],
        "return_schema_version": 5,
        "queue_claim": {key: claim[key] for key in QUEUE_CLAIM_KEYS},
        "status": "processed",
        "slide_source": slide_source if slide_source in SLIDE_SOURCES else "none",
        "rhetoric_notes": "",
        "areas_for_improvement": "",
        "adherence_assessment": "",
        "new_patterns": "",
        "summary_updates": "",
        "structured_data": {},
        "verbatim_examples": {},
        "pattern_observations": {
            "evidence_sources": [r["source"] for r in records],
            "source_inspection": records,
            "patterns_detected": [],
            "antipatterns_detected": [],
            "applicability_assessments": [],
            "not_evaluable": not_evaluable,
            "pattern_score": {"patterns_used": 0, "antipatterns_detected": 0, "score": 0},
        },
        "catalog_feedback": {lane: [] for lane in FEEDBACK_LANES},
    }
    if talk.get("transcript_source") in TRANSCRIPT_SOURCES:
        skeleton["transcript_source"] = talk["transcript_source"]
    if isinstance(talk.get("delivery_language"), str) and talk["delivery_language"]:
        skeleton["structured_data"]["delivery_language"] = talk["delivery_language"]
    if slide_source == "video_extracted":
        structured = talk.get("structured_data")
        manifest = structured.get("video_extraction") if isinstance(structured, dict) else None
        if not isinstance(manifest, dict):
            manifest = stored_manifest
        if isinstance(manifest, dict):
            skeleton["structured_data"]["video_extraction"] = manifest
        if found.pdf_path is not None and found.pdf_is_video_extracted:
            skeleton["slides_local_path"] = found.pdf_path
        else:
            skeleton["status"] = "processed_partial"
            skeleton["clear_fields"] = ["slides_local_path"]
    elif found.pdf_path is not None:
        skeleton["slides_local_path"] = found.pdf_path
    if skeleton["slide_source"] == "none":
        skeleton["status"] = "processed_partial"  # "none: transcript-only, processed_partial"
    return skeleton, needs_assessment


def _derived_slide_source(found: TalkArtifacts, manifest: dict[str, Any] | None) -> str | None:
    """The slide_source the evidence on disk supports, for a talk that records none."""
    if found.pdf_path is not None and found.pdf_is_video_extracted:
        return "video_extracted" if manifest is not None else None
    if found.pdf_path is not None:
        return "both" if found.deck_slides else "pdf"
    return "pptx" if found.deck_slides else None


def _trusted_stored_manifest(vault_root: Path, talk: dict[str, Any]) -> dict[str, Any] | None:
    """``slides-rebuild/{id}/{id}.video-extraction.json`` when the video owner trusts it."""
    from rvault_contracts.strict_json import StrictJSONError, loads_strict
    from rvault_video_extraction.api import manifest_path

    from rvault_returns_persistence.artifacts import _regular_file
    from rvault_returns_persistence.video_manifest import assess

    key = tracking.talk_video_key(talk)
    if key is None:
        return None
    relative = manifest_path(key)
    path = _regular_file(vault_root, relative)
    if path is None:
        return None
    try:
        manifest = loads_strict(path.read_bytes())
    except (OSError, StrictJSONError):
        return None
    if not isinstance(manifest, dict):
        return None
    verdict = assess(manifest, vault_root=vault_root)
    return manifest if verdict.valid and verdict.trusted else None


def scaffold_with_guide(
    db_talk: dict[str, Any], catalog: Catalog, vault_root: Path, deck_slides: int | None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The skeleton, the ids still needing an assessment, and why each not_evaluable row is.

    Only evidence trusted now is offered: the promoted video-extracted PDF counts
    when the video owner still trusts its manifest (a recording replaced after the
    extraction makes it stale), the attached recording when it still has its
    recorded bytes and a video stream (``artifacts.resolve``).
    """
    from rvault_returns_persistence.artifacts import resolve

    found = resolve(vault_root, db_talk, deck_slides=deck_slides)
    manifest = None
    if found.pdf_is_video_extracted:
        manifest = _trusted_stored_manifest(vault_root, db_talk)
        if manifest is None:  # stale, untrusted or gone: its pages are no evidence now
            found = replace(found, pdf_path=None, pdf_pages=None, pdf_is_video_extracted=False)
    skeleton, needs = build_scaffold(db_talk, catalog, found, manifest)
    return skeleton, needs, not_evaluable_guide(skeleton, catalog, found)


def scaffold_for(
    db_talk: dict[str, Any], catalog: Catalog, vault_root: Path, deck_slides: int | None
) -> tuple[dict[str, Any], list[str]]:
    skeleton, needs, _ = scaffold_with_guide(db_talk, catalog, vault_root, deck_slides)
    return skeleton, needs


_STATE_WORDS = {
    "not_inspected": "not available for this talk",
    "capable": "inspected completely",
}


def _member_words(source: str, state: str, video_extracted: bool) -> str:
    if state != "positive_only":
        return f"{source} {_STATE_WORDS[state]}"
    _, reason = absence_capability(source, True, video_extracted and source == "static_slides")
    return f"{source} inspected completely but positive-only ({reason})"


def _gate_words(
    gate: Gate | None, inspection: Inspection, video_extracted: bool, *, singletons: bool
) -> str:
    """Each alternative of the gate with the state of its members, e.g.
    ``[static_slides] static_slides inspected completely but positive-only (...)``."""
    parts = []
    for alt, states in unmet_alternatives(gate, inspection.complete, inspection.capable):
        if singletons and len(alt) > 1:
            continue  # an absence stands only on one source (gates.absence_satisfied)
        members = ", ".join(_member_words(s, st, video_extracted) for s, st in states.items())
        parts.append(f"[{' + '.join(sorted(alt))}]: {members}")
    return "; ".join(parts) or "no single-source alternative"


def _row_words(
    entry: CatalogEntry, reason: str, inspection: Inspection, video_extracted: bool
) -> str:
    detect = "if you observe it, detect it with citations and delete this row; otherwise keep it"
    if reason == "source_gate_pending_owner_review":
        return (
            "the catalog owner has approved no source gate yet: it can be neither detected "
            "nor absent; keep the row"
        )
    if reason == "absence_not_authorized_by_catalog":
        return (
            "the catalog allows only a positive detection (absence_evaluable_from: null); " + detect
        )
    if reason == "missing_applicability_source_coverage":
        gate = _gate_words(
            entry.applicability_evaluable_from, inspection, video_extracted, singletons=False
        )
        why = "whether it applies needs every source of one alternative, and none holds"
        return f"{why} ({gate}); {detect}"
    gate = _gate_words(entry.absence_evaluable_from, inspection, video_extracted, singletons=True)
    why = "an absence needs one absence-capable, completely inspected source"
    return f"{why} ({gate}); {detect}"


def not_evaluable_guide(
    skeleton: dict[str, Any], catalog: Catalog, found: TalkArtifacts
) -> list[str]:
    """One line per pre-filled not_evaluable row: which gate is unmet and why.

    Complete coverage is not enough for an absence (spec: video-extracted
    pages, a bare deck and a bare video are positive-only), so a row such as
    ``unifying-visual-theme: missing_required_source_coverage`` beside a
    completely inspected video-extracted PDF names that reason instead of
    reading as a contradiction of the inspection table.
    """
    slide_source = skeleton.get("slide_source")
    _, inspection = _inspection(found, slide_source if slide_source != "none" else None)
    extracted = found.pdf_is_video_extracted or slide_source == "video_extracted"
    lines = []
    observations = skeleton.get("pattern_observations", {})
    for row in observations.get("not_evaluable", []):
        entry = catalog.get(row["pattern_id"])
        if entry is not None:
            words = _row_words(entry, row["reason_code"], inspection, extracted)
            lines.append(f"{row['pattern_id']}: {row['reason_code']}: {words}")
    return lines


def field_guide(skeleton: dict[str, Any]) -> list[str]:
    """One line per field of ``skeleton`` (and of its pattern_observations): what belongs there.

    The meanings are the worker-return v5 schema's descriptions, so the guide
    and the contract say the same thing; the skeleton itself stays a valid
    return (a closed object has no room for comments).
    """
    from rvault_contracts.schemas import load_schema

    schema = load_schema("worker-return", 5)
    top = schema["properties"]
    nested = top["pattern_observations"]["properties"]
    fields = [(name, top.get(name, {})) for name in skeleton]
    observations = skeleton.get("pattern_observations")
    if isinstance(observations, dict):
        fields += [(f"pattern_observations.{n}", nested.get(n, {})) for n in observations]
    return [f"{name}: {spec['description']}" for name, spec in fields if "description" in spec]
