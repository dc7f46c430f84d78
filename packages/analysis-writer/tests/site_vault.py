"""A generated vault for the site's tests and benchmark (not a test module).

The talks are what ``rvault-returns persist`` leaves behind (the shared
builders in ``analysis_testdata``), spread over dates, scores, detected
patterns and antipatterns, generations and statuses. The evidence is real
and produced by the owners' own tools where they have one:

* the transcript bundle (text, timing receipt v2, quality receipt v1) comes
  from ``rvault-transcript vtt-cleanup`` on a generated WebVTT file, once per
  vault; other talks reuse the same bytes under their own name (the receipts
  bind the bytes and the caption file, which stays shared);
* slide PDFs are drawn with Pillow (one real multi-page PDF per talk);
* the whole vault is read back through the tracking-db owner read by the
  site itself, so a shape the owner rejects fails the test.

``hostile=True`` gives one talk a title and a quote an attacker would write.
"""

from __future__ import annotations

import copy
import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis_testdata import database, make_return, persisted_talk
from PIL import Image, ImageDraw
from rvault_contracts.canonical import sha256_bytes
from rvault_returns_persistence.api import load_catalog
from rvault_testkit.plugin import run_cli

HOSTILE_TITLE = '<script>alert("title")</script> & "><img src=x onerror=alert(1)>'
HOSTILE_QUOTE = '"><img src=x onerror=alert(2)> <script>alert(3)</script> said the speaker'
QUOTE = "the worst deploy of my life"
CAPTION_ID = "caption0000"
PUBLIC_VIDEO_ID = "dQw4w9WgXcQ"
UNIQUE_PHRASE = "a marmalade lighthouse keeps the quarterly roadmap honest"
SLIDE_PHRASE = "Zeppelin budgeting"
SLIDE_HEADER = (120, 30, 90)  # a colour nothing else on the site uses
PATTERNS = ("narrative-arc", "bookends", "callback-humor", "breadcrumbs", "live-demo-rehearsed")
ANTIPATTERNS = ("shortchanged", "reading-the-slides", "hiccup-words")


@dataclass
class Vault:
    root: Path
    db: Path
    talks: list[dict[str, Any]] = field(default_factory=list)

    def write_db(self) -> None:
        self.db.write_text(json.dumps(database(self.talks), indent=2, sort_keys=True) + "\n")


def _vtt(lines: list[str]) -> str:
    cues = ["WEBVTT", ""]
    for i, line in enumerate(lines):
        cues += [
            f"00:{i // 60:02d}:{i % 60:02d}.000 --> 00:{i // 60:02d}:{i % 60:02d}.900",
            line,
            "",
        ]
    return "\n".join(cues)


def transcript_lines(hostile: bool) -> list[str]:
    """Natural, non-repetitive English (the catalog's own descriptions, read aloud)."""
    entries = load_catalog().entries
    prose = [
        str(entries[k].raw.get(field, ""))
        for k in sorted(entries)
        for field in ("summary", "observable_signal")
    ]
    words = " ".join(prose).split()
    lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    lines.insert(2, f"Let me tell you about {QUOTE}.")
    if hostile:
        lines.insert(5, HOSTILE_QUOTE)
    return lines


def make_transcript_bundle(
    transcripts: Path, hostile: bool = False, caption_id: str = CAPTION_ID, extra: str = ""
) -> None:
    """The owner's bundle for ``caption_id`` (text + timing + quality receipts);
    ``extra`` is one more line near the end (a phrase only this transcript holds)."""
    transcripts.mkdir(parents=True, exist_ok=True)
    vtt = transcripts / f"{caption_id}.en.vtt"
    lines = transcript_lines(hostile)
    if extra:
        lines.insert(len(lines) - 3, extra)
    vtt.write_text(_vtt(lines), encoding="utf-8")
    result = run_cli("rvault-transcript", "vtt-cleanup", vtt, transcripts / f"{caption_id}.txt")
    assert result.returncode == 0, result.stdout + result.stderr


def copy_bundle(transcripts: Path, name: str, caption_id: str = CAPTION_ID) -> str:
    """Reuse the bundle's bytes as ``transcripts/{name}.txt`` (receipts stay valid)."""
    for suffix in (".txt", ".segments.json", ".quality.json"):
        shutil.copyfile(transcripts / f"{caption_id}{suffix}", transcripts / f"{name}{suffix}")
    return f"transcripts/{name}.txt"


def make_pdf(path: Path, pages: int, label: str) -> None:
    """A real multi-page PDF (Pillow), one coloured slide per page."""
    images = []
    for n in range(1, pages + 1):
        image = Image.new("RGB", (640, 360), (240 - 20 * (n % 5), 245, 250))
        draw = ImageDraw.Draw(image)
        draw.rectangle((0, 0, 640, 50), fill=SLIDE_HEADER)
        draw.text((20, 15), f"{label}  slide {n}/{pages}", fill=(255, 255, 255))
        draw.rectangle((60, 120, 60 + 80 * (n % 7 + 1), 220), fill=(31, 95, 153))
        images.append(image)
    buffer = io.BytesIO()
    images[0].save(buffer, "PDF", save_all=True, append_images=images[1:], resolution=72.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def make_text_pdf(path: Path, pages: list[str]) -> None:
    """A PDF whose pages carry a real text layer (Helvetica, one line each), written
    object by object with its cross-reference table: what an exported deck holds, and
    what PDFium reads back as the slide text the search indexes."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, once the page numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for text in pages:
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 28 Tf 40 200 Td ({safe}) Tj ET".encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 640 360] /Contents %d 0 R"
            b" /Resources << /Font << /F1 3 0 R >> >> >>" % len(objects)
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))


def _observations(talk: dict[str, Any], index: int) -> None:
    """Vary the detected patterns/antipatterns and the score across talks."""
    po = talk["pattern_observations"]
    base = po["patterns_detected"][0]
    patterns = [PATTERNS[(index + k) % len(PATTERNS)] for k in range(1 + index % 3)]
    antipatterns = [ANTIPATTERNS[index % len(ANTIPATTERNS)]] if index % 2 else []
    detections = []
    for pid in patterns:
        record = copy.deepcopy(base)
        record["pattern_id"] = pid
        detections.append(record)
    anti = []
    for pid in antipatterns:
        record = copy.deepcopy(base)
        record["pattern_id"] = pid
        record["confidence"] = "moderate"
        record["evidence"] = "The close arrives abruptly."
        anti.append(record)
    po["patterns_detected"] = detections
    po["antipatterns_detected"] = anti
    po["pattern_ids"] = sorted(patterns)
    po["antipattern_ids"] = sorted(antipatterns)
    outcomes = {pid: "detected" for pid in (*patterns, *antipatterns)}
    outcomes["crawling-credits"] = "not_evaluable"
    po["pattern_outcomes"] = [{"pattern_id": k, "outcome": v} for k, v in sorted(outcomes.items())]
    score = len(patterns) - len(antipatterns)
    po["pattern_score"] = score
    talk["pattern_score"] = score


def _spread(talk: dict[str, Any], lines: list[str]) -> None:
    """Cite a later transcript line for every detection after the first (which keeps
    :data:`QUOTE` on line 3), so the moments of a talk lie apart on its timeline."""
    po = talk["pattern_observations"]
    for k, record in enumerate(po["patterns_detected"] + po["antipatterns_detected"]):
        line = 3 + 37 * k
        if k and line <= len(lines):
            citation = record["evidence_citations"][0]
            citation.update(quote=lines[line - 1], line_start=line, line_end=line)


def _canonical(talk: dict[str, Any], root: Path) -> None:
    """The engine enrichment persist adds, bound to this vault's real transcript bytes,
    so every ledger v2 passes the registered pattern-observations v2 contract."""
    entries = load_catalog().entries
    po = talk["pattern_observations"]
    transcript = talk["transcript_path"]
    quality = transcript.removesuffix(".txt") + ".quality.json"
    digest = sha256_bytes((root / transcript).read_bytes())
    for row in po["source_inspection"]:
        row.update(
            artifact_path=transcript,
            artifact_sha256=digest,
            quality_artifact_path=quality,
            quality_artifact_sha256=sha256_bytes((root / quality).read_bytes()),
        )
    for record in po["patterns_detected"] + po["antipatterns_detected"]:
        record["dimensions"] = list(entries[record["pattern_id"]].dimensions)
        for citation in record["evidence_citations"]:
            citation.update(artifact_path=transcript, artifact_sha256=digest)
    for record in po["not_evaluable"]:
        record.update(
            dimensions=list(entries[record["pattern_id"]].dimensions),
            required_source_groups=[["static_slides"]],
            available_source_groups=[],
            capability_fact={
                "absence_capable_sources": ["transcript"],
                "complete_sources": ["transcript"],
                "inspected_sources": ["transcript"],
            },
        )


def _legacy(talk: dict[str, Any]) -> None:
    talk["pattern_scoring_generation_status"] = "legacy_unbaselineable"
    talk["pattern_scoring_generation_reasons"] = ["return_schema_version_archival"]
    for key in ("pattern_scoring_schema_version", "pattern_catalog_fingerprint"):
        talk.pop(key, None)
    talk["adherence_assessment"] = "Matched the 2023 baseline closely."


def build_vault(
    root: Path,
    *,
    talks: int = 8,
    processed: int = 4,
    pages: int = 3,
    hostile: bool = False,
    legacy_every: int = 4,
    unique_talk: int | None = None,
) -> Vault:
    """``talks`` talks, the first ``processed`` of them analysed with slides and transcripts;
    talk ``unique_talk`` has its own transcript holding :data:`UNIQUE_PHRASE`."""
    vault = Vault(root, root / "tracking-database.json")
    transcripts = root / "transcripts"
    make_transcript_bundle(transcripts, hostile)
    lines = transcript_lines(hostile)
    fingerprint = load_catalog().fingerprint
    names = [
        f"{2015 + i % 10}-{1 + i % 12:02d}-{1 + i % 27:02d}-talk-{i:04d}.md" for i in range(talks)
    ]
    analysed = names[:processed]
    for index, name in enumerate(names):
        stem = name[:-3]
        if index < processed:
            talk = persisted_talk(make_return(name), fingerprint, analysed)
            talk["date"] = name[:10]
            talk["conference"] = ("DevConf", "PyCon", "Strange Loop")[index % 3]
            if index == unique_talk:
                make_transcript_bundle(transcripts, hostile, "caption0001", UNIQUE_PHRASE)
                talk["transcript_path"] = copy_bundle(transcripts, stem, "caption0001")
            else:
                talk["transcript_path"] = copy_bundle(transcripts, stem)
            drive = f"drive{index:04d}AbCdEf"
            talk["google_drive_id"] = drive
            talk["slides_local_path"] = f"slides/{drive}.pdf"
            if index == unique_talk:  # an exported deck: slides with a text layer
                slides = [f"{SLIDE_PHRASE} {n}" for n in range(1, pages + 1)]
                make_text_pdf(root / talk["slides_local_path"], slides)
            else:
                make_pdf(root / talk["slides_local_path"], pages, stem)
            if index == 1:  # a public recording: its cited moments link to t= seconds
                talk["youtube_id"] = PUBLIC_VIDEO_ID
            _observations(talk, index)
            _spread(talk, lines)
            _canonical(talk, root)
            if legacy_every and index % legacy_every == legacy_every - 1:
                _legacy(talk)
            if index % 5 == 4:
                talk["status"] = "processed_partial"
                talk["_queue_claim"]["result_status"] = "processed_partial"
        else:
            talk = {
                "schema_version": 5,
                "filename": name,
                "title": f"Talk {stem}",
                "conference": "MeetupConf",
                "date": name[:10],
                "status": ("pending", "needs-reprocessing", "skipped_duplicate")[index % 3],
            }
            if talk["status"] == "skipped_duplicate":
                talk["source_relation"] = {"type": "duplicate", "target_filename": names[0]}
            if index % 2 == 0:
                talk["transcript_path"] = copy_bundle(transcripts, stem)
        vault.talks.append(talk)
    if hostile and vault.talks:
        talk = vault.talks[0]
        talk["title"] = HOSTILE_TITLE
        talk["rhetoric_notes"] = (
            "Notes with raw HTML: <script>alert('notes')</script> and a "
            "[link](javascript:alert(4)).\n\n" + talk["rhetoric_notes"]
        )
        citation = talk["pattern_observations"]["patterns_detected"][0]["evidence_citations"][0]
        citation["quote"] = HOSTILE_QUOTE
        citation["line_start"] = citation["line_end"] = 6
    vault.write_db()
    return vault
