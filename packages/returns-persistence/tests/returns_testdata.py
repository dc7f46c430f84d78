"""Builders for test vaults, claimed talks and valid returns.

Claims are written straight into the database JSON following the
specification's ``_queue_claim`` example (test data construction, not a
second claim writer). Artifacts are real files generated at test time: a
transcript with N lines and a PDF with N pages made by pypdf.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from rvault_returns_persistence.artifacts import resolve
from rvault_returns_persistence.catalog import Catalog, load_catalog
from rvault_returns_persistence.checks_inspection import Inspection
from rvault_returns_persistence.checks_patterns import expected_reason
from rvault_returns_persistence.scaffold import build_scaffold
from rvault_returns_persistence.vocabulary import LOCATING_CHANNELS

CLAIMED_AT = "2026-07-31T18:00:00+00:00"
RUN_ID = "reparse-2026-07"
BATCH_ID = "25"
CATALOG = load_catalog()

NOTES = (
    "The talk opens on a failure story and keeps returning to it; transitions are spoken bridges, "
    "slides are image-led and the pacing slows deliberately before each demo segment."
)
AREAS = "The closing section is rushed (shortchanged, moderate): the final topic is announced late."


def baseline(members: list[str], claimed_at: str = CLAIMED_AT) -> dict[str, Any]:
    return {
        "schema_version": 2,
        "as_of": claimed_at,
        "scope": "global",
        "active_batch_excluded": True,
        "excluded_filenames": sorted(members),
        "eligible_statuses": ["processed", "processed_partial"],
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_catalog_fingerprint": "a" * 64,
        "pattern_scoring_schema_version": 5,
        "eligible_talk_count": 0,
        "opportunity_coverage_identity": None,
        "raw_score_comparison_status": "unavailable",
        "raw_score_comparison_reason": "no_eligible_talks",
        "scored_talk_count": 0,
        "pattern_score_sum": 0,
        "average_pattern_score": None,
    }


def claim_v5(
    members: list[str], *, generation: int = 1, run_id: str = RUN_ID, batch_id: str = BATCH_ID
) -> dict[str, Any]:
    return {
        "schema_version": 5,
        "run_id": run_id,
        "batch_id": batch_id,
        "claimed_at": CLAIMED_AT,
        "previous_status": "pending",
        "reprocess_generation": generation,
        "required_return_schema_version": 5,
        "adherence_baseline": baseline(members),
        "state": "claimed",
    }


def talk(filename: str, youtube_id: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "schema_version": 5,
        "filename": filename,
        "title": "A Talk",
        "conference": "ExampleConf",
        "date": "2024-04-10",
        "video_url": f"https://www.youtube.com/watch?v={youtube_id}",
        "youtube_id": youtube_id,
        "status": "reprocessing-inflight",
        "reprocess_generation": 1,
        "slide_source": "pdf",
        "transcript_source": "youtube_auto",
        "delivery_language": "en",
        "structured_data": {},
        "verbatim_examples": {},
    }
    record.update(fields)
    return record


def database(
    talks: list[dict[str, Any]], pptx_catalog: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "config": {"schema_version": 2, "vault_root": "~/vault", "pptx_directory_exclusions": []},
        "talks": talks,
        "pptx_catalog": pptx_catalog or [],
        "qr_codes": [],
        "resources": [],
        "thumbnails": [],
        "confirmed_intents": [],
        "improvement_goals": [],
    }


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_transcript(root: Path, youtube_id: str, lines: int) -> Path:
    path = root / "transcripts" / f"{youtube_id}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = [
        f"line {n} we talk about the failure story and the way out of it"
        for n in range(1, lines + 1)
    ]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def write_pdf(path: Path, pages: int) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=320, height=180)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        writer.write(handle)
    return path


def standard_vault(
    root: Path, *, members: int = 1, lines: int = 240, pages: int = 12
) -> tuple[Path, list[dict[str, Any]]]:
    """A vault whose talks each have a transcript, an authored PDF and a catalogued deck."""
    names = [f"2024-04-{10 + i:02d}-talk-{i}.md" for i in range(members)]
    talks = []
    pptx = []
    for i, name in enumerate(names):
        yid = f"vid{i:08d}"
        record = talk(
            name,
            yid,
            google_drive_id=f"drive{i}",
            pptx_path=f"Conf/2024/Talk {i}.pptx",
            slide_source="both",
            _queue_claim=claim_v5(names),
        )
        talks.append(record)
        pptx.append(
            {
                "schema_version": 1,
                "pptx_path": f"Conf/2024/Talk {i}.pptx",
                "talk_filename": name,
                "matched": True,
                "slide_count": pages,
                "visual_extracted": False,
            }
        )
        write_transcript(root, yid, lines)
        write_pdf(root / "slides" / f"drive{i}.pdf", pages)
    db = write_json(root / "tracking-database.json", database(talks, pptx))
    return db, talks


def _citation(entry_channels: frozenset[str], source: str) -> dict[str, Any]:
    if source == "transcript":
        channel = "transcript" if "transcript" in entry_channels else "timed_transcript"
        return {
            "source": "transcript",
            "channel": channel,
            "quote": "we talk about the failure story",
        }
    if source in ("static_slides", "native_deck"):
        if "slides" in entry_channels:
            return {"source": source, "channel": "slides", "slide_numbers": [2]}
        return {"source": source, "channel": "slide_sequence", "slide_numbers": [2, 3]}
    return {
        "source": "delivery_video",
        "channel": "video",
        "start_seconds": 10.0,
        "end_seconds": 20.0,
    }


def sourced(entry_id: str, source: str, *, catalog: Catalog = CATALOG) -> dict[str, Any]:
    """Evidence fields for a record from one inspected source."""
    entry = catalog.entries[entry_id]
    return {
        "evidence_source": source,
        "evidence": f"Observed {entry_id} in the {source}.",
        "evidence_citations": [_citation(entry.evidence_channels, source)],
    }


def pick_source(gate: Any, channels: frozenset[str], inspected: set[str]) -> str | None:
    for alt in gate or ():
        if alt <= inspected:
            for source in sorted(alt):
                if LOCATING_CHANNELS[source] & channels:
                    return source
    return None


def complete_return(
    db_talk: dict[str, Any],
    root: Path,
    *,
    deck_slides: int | None = 12,
    detect: tuple[str, ...] = ("narrative-arc", "bookends"),
    antidetect: tuple[str, ...] = ("going-meta",),
    applicable: frozenset[str] = frozenset(),
    catalog: Catalog = CATALOG,
) -> dict[str, Any]:
    """A scaffold completed with real observations (the way a worker fills it)."""
    found = resolve(root, db_talk, deck_slides=deck_slides)
    ret, needs = build_scaffold(db_talk, catalog, found)
    ret = copy.deepcopy(ret)
    ret["rhetoric_notes"] = NOTES
    ret["areas_for_improvement"] = AREAS
    po = ret["pattern_observations"]
    inspected = set(po["evidence_sources"])
    for lane, ids in (("patterns_detected", detect), ("antipatterns_detected", antidetect)):
        for pid in ids:
            entry = catalog.entries[pid]
            source = pick_source(entry.evaluable_from, entry.evidence_channels, inspected)
            assert source is not None, pid
            po[lane].append(
                {
                    "pattern_id": pid,
                    "confidence": "moderate",
                    **sourced(pid, source, catalog=catalog),
                }
            )
    detected = set(detect) | set(antidetect)
    assessments: dict[str, str] = {}
    for pid in needs:
        if pid in detected:
            continue
        entry = catalog.entries[pid]
        source = pick_source(entry.applicability_evaluable_from, entry.evidence_channels, inspected)
        assert source is not None, pid
        row: dict[str, Any] = {"pattern_id": pid}
        if pid in applicable:
            row["result"] = "applicable"
        else:
            row["result"] = "not_applicable"
            row["condition_id"] = entry.conditions[0]
        row.update(sourced(pid, source, catalog=catalog))
        po["applicability_assessments"].append(row)
        assessments[pid] = row["result"]
    inspection = Inspection(declared=inspected, inspected=inspected - {"source_comparison"})
    inspection.capable = {"transcript", "static_slides"} & inspected
    if db_talk.get("slide_source") == "video_extracted":
        inspection.capable.discard("static_slides")
    po["not_evaluable"] = [
        {"pattern_id": e.id, "reason_code": reason}
        for e in sorted(catalog.observable(), key=lambda e: e.id)
        if e.id not in detected
        and (reason := expected_reason(e, 5, inspection, assessments)) is not None
    ]
    p, a = len(po["patterns_detected"]), len(po["antipatterns_detected"])
    po["pattern_score"] = {"patterns_used": p, "antipatterns_detected": a, "score": p - a}
    return ret
