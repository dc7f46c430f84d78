"""Builders for test vaults, claimed talks and valid returns.

Claims are written straight into the database JSON following the
specification's ``_queue_claim`` example (test data construction, not a
second claim writer). Artifacts are real files generated at test time: a
transcript with N lines and a PDF with N pages made by pypdf.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from rvault_returns_persistence.artifacts import resolve
from rvault_returns_persistence.catalog import Catalog, default_catalog_dir, load_catalog
from rvault_returns_persistence.checks.inspection import Inspection
from rvault_returns_persistence.checks.protocol import expected_reason
from rvault_returns_persistence.database import Database
from rvault_returns_persistence.scaffold import build_scaffold
from rvault_returns_persistence.vocabulary import LOCATING_CHANNELS
from rvault_testkit.tracking_db.root import minimal_config, root_database

CLAIMED_AT = "2026-07-31T18:00:00+00:00"
RUN_ID = "reparse-2026-07"
BATCH_ID = "25"
CATALOG = load_catalog()
CATALOG_DIR = default_catalog_dir()

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
    return root_database(
        talks, config=minimal_config(vault_root="~/vault"), pptx_catalog=pptx_catalog
    )


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_transcript(root: Path, youtube_id: str, lines: int) -> Path:
    path = root / "transcripts" / f"{youtube_id}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    # The cited phrase occurs exactly once (a quote must locate one place); the rest differ.
    body = ["line 1 we talk about the failure story and the way out of it"] + [
        f"line {n} the speaker moves on to topic {n} and its details" for n in range(2, lines + 1)
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


def write_timing(root: Path, youtube_id: str, duration: float = 1800.0) -> Path:
    """A timing receipt v2 (spec shape) for the transcript, one segment per line."""
    import hashlib

    transcript = root / "transcripts" / f"{youtube_id}.txt"
    data = transcript.read_bytes()
    segments = [
        {"text": line, "start_seconds": i * 5.0, "end_seconds": i * 5.0 + 4.5}
        for i, line in enumerate(data.decode("utf-8").splitlines())
    ]
    receipt = {
        "schema_version": 2,
        "transcript_sha256": hashlib.sha256(data).hexdigest(),
        "source": "captions",
        "provenance": {
            "kind": "youtube_captions",
            "video_id": youtube_id,
            "duration_seconds": duration,
        },
        "segments": segments,
    }
    return write_json(root / "transcripts" / f"{youtube_id}.segments.json", receipt)


def write_video(root: Path, youtube_id: str) -> Path:
    """The downloaded delivery video's place in the vault (its bytes are never decoded here)."""
    path = root / "slides-rebuild" / youtube_id / f"{youtube_id}.mp4"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42")
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


def _citation(
    entry_channels: frozenset[str], source: str, translate: bool = False
) -> dict[str, Any]:
    if source == "transcript":
        channel = "transcript" if "transcript" in entry_channels else "timed_transcript"
        cit = {
            "source": "transcript",
            "channel": channel,
            "quote": "we talk about the failure story",
        }
        if translate:
            cit["translation"] = "we talk about the failure story"
        return cit
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


def sourced(
    entry_id: str, source: str, *, catalog: Catalog = CATALOG, translate: bool = False
) -> dict[str, Any]:
    """Evidence fields for a record from one inspected source."""
    entry = catalog.entries[entry_id]
    return {
        "evidence_source": source,
        "evidence": f"Observed {entry_id} in the {source}.",
        "evidence_citations": [_citation(entry.evidence_channels, source, translate)],
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
    version: int = 5,
) -> dict[str, Any]:
    """A scaffold completed with real observations (the way a worker fills it)."""
    found = resolve(root, db_talk, deck_slides=deck_slides)
    scaffold_talk = db_talk
    if version < 5:  # the scaffold serves only v5 claims; legacy replay data reuses its layout
        scaffold_talk = {**db_talk, "_queue_claim": claim_v5([db_talk["filename"]])}
    ret, needs = build_scaffold(scaffold_talk, catalog, found)
    ret = copy.deepcopy(ret)
    claim = db_talk["_queue_claim"]
    ret["queue_claim"] = {k: claim[k] for k in ("run_id", "batch_id", "reprocess_generation")}
    ret["rhetoric_notes"] = NOTES
    ret["areas_for_improvement"] = AREAS
    translate = db_talk.get("delivery_language") not in (None, "en")
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
                    **sourced(pid, source, catalog=catalog, translate=translate),
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
        row.update(sourced(pid, source, catalog=catalog, translate=translate))
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
    if version == 4:
        po.pop("applicability_assessments")
        ret.pop("catalog_feedback")
        po["not_evaluable"] = [
            {"pattern_id": e.id, "reason_code": reason}
            for e in sorted(catalog.observable(), key=lambda e: e.id)
            if e.id not in detected
            and (reason := expected_reason(e, 4, inspection, {})) is not None
        ]
    elif version < 4:
        po.pop("applicability_assessments")
        po.pop("source_inspection")
        ret.pop("catalog_feedback")
        po["not_evaluable"] = []
        for lane in ("patterns_detected", "antipatterns_detected"):
            for record in po[lane]:
                record["evidence_citations"] = []
    ret["return_schema_version"] = version
    p, a = len(po["patterns_detected"]), len(po["antipatterns_detected"])
    po["pattern_score"] = {"patterns_used": p, "antipatterns_detected": a, "score": p - a}
    return ret


def claim_legacy(version: int, filename: str, *, batch_id: str) -> dict[str, Any]:
    """Saved claim v1-v4 (v1 has no schema_version; v3/v4 carry a baseline v1)."""
    claim: dict[str, Any] = {
        "run_id": RUN_ID,
        "batch_id": batch_id,
        "claimed_at": CLAIMED_AT,
        "previous_status": "needs-reprocessing",
        "reprocess_generation": 1,
        "state": "claimed",
    }
    if version >= 2:
        claim["schema_version"] = version
    if version >= 3:
        claim["required_return_schema_version"] = version
        base = baseline([filename])
        for key in (
            "opportunity_coverage_identity",
            "raw_score_comparison_status",
            "raw_score_comparison_reason",
            "scored_talk_count",
        ):
            del base[key]
        base.update(schema_version=1, pattern_scoring_schema_version=version)
        claim["adherence_baseline"] = base
    return claim


def _digest(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size_bytes": len(data)}


def manifest(video_id: str, root: Path, *, trusted: bool = True, pages: int = 6) -> dict[str, Any]:
    """A schema-v4 video-extraction manifest whose video and PDFs really exist under ``root``.

    The source receipt records the digests of those very bytes (the owner's
    validator re-checks them), and a decode that reached the declared end.
    """
    folder = root.resolve() / "slides-rebuild" / video_id
    folder.mkdir(parents=True, exist_ok=True)
    video_path = folder / f"{video_id}.mp4"
    video_path.write_bytes(b"not decoded by validation")
    region = write_pdf(folder / f"{video_id}.slide-region.pdf", pages)
    context = write_pdf(folder / f"{video_id}.context.pdf", pages)
    return {
        "slide_source": "video_extracted",
        "schema_version": 4,
        "pipeline_version": "1.2.0",
        "source_video_id": video_id,
        "source_video_path": str(video_path),
        "source_receipt": {
            "vault_path": f"slides-rebuild/{video_id}/{video_id}.mp4",
            **_digest(video_path),
            "container_duration_seconds": 200.0,
            "duration_source": "video_stream",
            "video_stream": {
                "codec": "h264",
                "width": 1280,
                "height": 720,
                "fps": 25.0,
                "frame_count": 5000,
            },
            "demuxed_end_seconds": 200.0,
            "decoded_span_seconds": {"first": 0.0, "last": 199.5},
            "decode_complete": True,
        },
        "total_frames_extracted": 100,
        "unique_frame_count": pages,
        "authored_slide_count": None,
        "hash_threshold_used": 8,
        "slide_region_detected": False,
        "slide_region_applied": True,
        "slide_region_method": "manual",
        "slide_region_verified": trusted,
        "slide_region": [0.05, 0.02, 0.78, 0.98],
        "fps_used": 0.5,
        "retained_frames": [
            {"page_number": n + 1, "frame_index": n * 6, "timestamp_seconds": n * 12.0}
            for n in range(pages)
        ],
        "artifacts": [
            {
                "path": str(region),
                "artifact_scope": "slide_region",
                "page_count": pages,
                **_digest(region),
                "source_video_id": video_id,
                "source_video_path": str(video_path),
                "crop_method": "manual",
                "crop_verified": trusted,
                "trusted_for_authored_slide_analysis": trusted,
            },
            {
                "path": str(context),
                "artifact_scope": "full_frame_context",
                "page_count": pages,
                **_digest(context),
                "source_video_id": video_id,
                "source_video_path": str(video_path),
                "crop_method": "none",
                "crop_verified": False,
                "trusted_for_authored_slide_analysis": False,
            },
        ],
        "review_required": not trusted,
        "review_reason": None if trusted else "crop not verified",
    }


def corpus_vault(root: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """One talk per situation, each in its own one-member batch.

    Every situation is one the owner read accepts: a stored claim the owner
    refuses (a future claim version, a broken baseline) makes the whole
    database unusable, so such claims are built by :func:`future_claim_talk`
    and checked with :func:`unchecked_database` instead.
    """
    specs: dict[str, dict[str, Any]] = {}

    def add(key: str, yid: str, claim: dict[str, Any] | None = None, **fields: Any) -> None:
        name = f"2024-05-01-{key}.md"
        record = talk(name, yid, **fields)
        record["_queue_claim"] = claim if claim is not None else claim_v5([name], batch_id=key)
        specs[key] = record

    add(
        "main",
        "main0000001",
        google_drive_id="drivemain",
        pptx_path="Conf/main.pptx",
        slide_source="both",
        source_identity={
            "schema_version": 1,
            "provider": "youtube",
            "video_id": "main0000001",
            "duration_seconds": 1800,
        },
    )
    add(
        "german",
        "germ0000001",
        google_drive_id="drivegerm",
        delivery_language="de",
        slide_source="pdf",
    )
    add(
        "video",
        "VIDvid00001",
        slide_source="video_extracted",
        structured_data={"video_extraction": manifest("VIDvid00001", root)},
    )
    add("nosrc", "nosrc000001")
    specs["nosrc"].pop("video_url")
    specs["nosrc"].pop("youtube_id")
    specs["nosrc"]["transcript_source"] = "none"
    for version in (1, 2, 3, 4):
        key = f"legacy{version}"
        add(
            key,
            f"leg{version}0000001",
            claim_legacy(version, f"2024-05-01-{key}.md", batch_id=key),
            google_drive_id=f"drive{key}",
            slide_source="pdf",
        )
    add("unclaimed", "uncl0000001", None, google_drive_id="driveuncl", slide_source="pdf")
    specs["unclaimed"].pop("_queue_claim")
    pptx = [
        {
            "schema_version": 1,
            "pptx_path": "Conf/main.pptx",
            "talk_filename": specs["main"]["filename"],
            "matched": True,
            "slide_count": 12,
            "visual_extracted": False,
        }
    ]
    for key, record in specs.items():
        yid = record.get("youtube_id")
        if key != "nosrc":
            write_transcript(root, yid, 240)
        if "google_drive_id" in record:
            write_pdf(root / "slides" / f"{record['google_drive_id']}.pdf", 12)
    write_pdf(root / "slides" / "VIDvid00001.pdf", 6)
    write_video(root, "main0000001")
    write_timing(root, "VIDvid00001")
    db = write_json(root / "tracking-database.json", database(list(specs.values()), pptx))
    return db, specs


def future_claim_talk() -> dict[str, Any]:
    """A claimed talk whose stored claim has a version no reader knows (9)."""
    name = "2024-05-01-future.md"
    claim = claim_v5([name], batch_id="future")
    claim["schema_version"] = 9
    return talk(
        name, "fut00000001", google_drive_id="drivefut", slide_source="pdf", _queue_claim=claim
    )


def unchecked_database(path: Path) -> Database:
    """A ``Database`` value decoded straight from ``path``, without the owner read.

    Test-only: commands read the database through tracking-db, which refuses a
    database with a broken stored claim. This builds the value the validator
    would be handed anyway, to exercise its own (defensive) claim checks.
    """
    root = json.loads(path.read_text(encoding="utf-8"))
    return Database(path=path, root=root, talks={t["filename"]: t for t in root["talks"]})
