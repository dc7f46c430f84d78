"""Builders for queue, capability and shownotes tests (not a test module).

Databases are current schema 1 with config v2 and realistic talks: processed
v5 talks with exhaustive outcomes and pending talks whose sources really
exist on disk (transcripts, PDFs, PPTX packages, MP4 headers), generated at
test time.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from rvault_testkit.tracking_db.root import root_database
from rvault_testkit.tracking_db.samples import example_ledger

FP = "a" * 64
ID_A = "c" * 64
ID_B = "d" * 64
DB_NAME = "tracking-database.json"


def config(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schema_version": 2,
        "pptx_directory_exclusions": [".git"],
        "template_skip_patterns": ["template"],
    }
    base.update(extra)
    return base


def database(talks: list[dict[str, Any]], **config_extra: Any) -> dict[str, Any]:
    return root_database(talks, config=config(**config_extra))


def processed_talk(
    filename: str,
    score: int,
    *,
    identity: str = ID_A,
    fingerprint: str = FP,
    outcomes: tuple[str, ...] = ("detected", "undetected", "not_evaluable"),
    status: str = "processed",
    **extra: Any,
) -> dict[str, Any]:
    talk: dict[str, Any] = {
        "schema_version": 5,
        "filename": filename,
        "title": f"Talk {filename}",
        "status": status,
        "reprocess_generation": 1,
        "pattern_score": score,
        "pattern_scoring_generation_status": "current",
        "pattern_scoring_generation_reasons": [],
        "pattern_scoring_schema_version": 5,
        "pattern_catalog_fingerprint": fingerprint,
        # A contract-valid ledger v2 (the owner read validates it) carrying
        # this talk's score, outcomes and identity.
        "pattern_observations": {
            **example_ledger(
                [{"pattern_id": f"p{i}", "outcome": outcome} for i, outcome in enumerate(outcomes)]
            ),
            "pattern_score": score,
            "opportunity_coverage_identity": identity,
        },
    }
    talk.update(extra)
    return talk


def bind_evidence(vault: Path, talk: dict[str, Any]) -> dict[str, Any]:
    """``talk`` with its ledger's evidence really on disk, as persist left it.

    The sample ledger cites a transcript and quality receipt by placeholder
    digests; this writes one small file per cited identity under
    ``evidence/{talk}/`` and records its real SHA-256 there (and in the
    citations that name it), so status and normalize find the analysis's
    evidence current until a test replaces a file.
    """
    ledger = talk["pattern_observations"]
    stem = talk["filename"].removesuffix(".md")
    moved: dict[str, tuple[str, str]] = {}
    for row in ledger["source_inspection"]:
        for path_key, digest_key in (
            ("artifact_path", "artifact_sha256"),
            ("quality_artifact_path", "quality_artifact_sha256"),
        ):
            if path_key not in row:
                continue
            relative = f"evidence/{stem}/{Path(row[path_key]).name}"
            data = f"{talk['filename']}: {row[path_key]}\n".encode()
            target = vault / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            moved[row[path_key]] = (relative, sha(data))
            row[path_key], row[digest_key] = moved[row[path_key]]
    for detection in ledger.get("patterns_detected", []):
        for citation in detection.get("evidence_citations", []):
            if citation.get("artifact_path") in moved:
                citation["artifact_path"], citation["artifact_sha256"] = moved[
                    citation["artifact_path"]
                ]
    return talk


def pending_talk(filename: str, *, status: str = "pending", **extra: Any) -> dict[str, Any]:
    talk: dict[str, Any] = {"schema_version": 5, "filename": filename, "status": status}
    talk["title"] = filename
    talk.update(extra)
    return talk


def contradicted_binding() -> dict[str, Any]:
    """A stored deck binding v1 whose title conflicts with the talk (a blocking finding)."""
    return {
        "schema_version": 1, "pptx_path": "Deck.pptx", "extraction_sha256": None,
        "decision": "contradicted", "reasons": ["title_conflicts"],
        "signals": {"title": "conflict", "venue": "unknown", "delivery_year": "unknown",
                    "filename_similarity": "unknown"},
    }  # fmt: skip


def remote_talk(filename: str, video_id: str, **extra: Any) -> dict[str, Any]:
    return pending_talk(
        filename,
        video_url=f"https://www.youtube.com/watch?v={video_id}",
        youtube_id=video_id,
        **extra,
    )


def write_db(vault: Path, document: dict[str, Any]) -> Path:
    vault.mkdir(parents=True, exist_ok=True)
    path = vault / DB_NAME
    path.write_bytes((json.dumps(document, indent=2, sort_keys=True) + "\n").encode())
    return path


def read_db(path: Path) -> dict[str, Any]:
    return json.loads(path.read_bytes())


def write_transcript(vault: Path, relative: str, text: str = "hello world transcript\n") -> Path:
    target = vault / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def write_pdf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
    return path


def write_pptx(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("ppt/presentation.xml", "<presentation/>")
    return path


def write_mp4(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2")
    return path


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
