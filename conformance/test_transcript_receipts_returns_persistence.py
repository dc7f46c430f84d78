"""transcript timing v2 + quality v1 -> returns-persistence (citation verification).

Persistence verifies a transcript quote against the exact transcript bytes
and stamps times only from a current, owner-bound timing receipt. This runs
the real ``rvault-transcript vtt-cleanup`` console script on a generated
caption file and reads the receipts back through ``rvault_transcript.api``,
the only module of the producer a consumer imports.
"""

from __future__ import annotations

import json
from pathlib import Path

from rvault_contracts.schemas import is_valid
from rvault_testkit.plugin import run_cli
from rvault_transcript import api

COVERS = [
    ("transcript-timing", "transcript", "returns-persistence"),
    ("transcript-quality", "transcript", "returns-persistence"),
]


def caption_file(lines: int) -> str:
    cues = []
    for i in range(lines):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        cues.append(
            f"{at}.000 --> {at}.800 align:start\n<v Speaker>sentence {i} of a persuasive talk</v>"
        )
    return "WEBVTT\nLanguage: en\n\n" + "\n\n".join(cues) + "\n"


def produce(tmp_path: Path) -> Path:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "talk.en.vtt").write_text(caption_file(70))
    out = transcripts / "talk.txt"
    result = run_cli("rvault-transcript", "vtt-cleanup", transcripts / "talk.en.vtt", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_quotes_and_timed_quotes_verify(tmp_path: Path) -> None:
    out = produce(tmp_path)
    timing_doc = json.loads(api.timing_path_for(out).read_text())
    quality_doc = json.loads(api.quality_path_for(out).read_text())
    assert is_valid("transcript-timing", 2, timing_doc)
    assert is_valid("transcript-quality", 2, quality_doc)
    assert quality_doc["language"]["language"] == "en"
    report = api.read_evidence(out)
    assert report.plain_quote and report.timed_quote
    # Stamp a timed quote from the verified segments (what persistence does).
    quote = "sentence 42 of a persuasive talk"
    assert out.read_text().count(quote) == 1
    located = [s for s in report.timing.segments if quote in s.text]
    assert [(s.start_seconds, s.end_seconds) for s in located] == [(42.0, 42.8)]


def test_stale_or_archival_receipts_make_evidence_unavailable(tmp_path: Path) -> None:
    out = produce(tmp_path)
    original = out.read_bytes()
    out.write_bytes(original.replace(b"\n", b"\r\n"))  # same words, other bytes
    stale = api.read_evidence(out)
    assert not stale.plain_quote and not stale.timed_quote
    assert stale.quality.code == "transcript_hash_mismatch"
    out.write_bytes(original)
    assert api.read_evidence(out).timed_quote
    api.timing_path_for(out).write_text(
        json.dumps(
            {"schema_version": 1, "segments": [{"text": "sentence 0", "start": 0.0, "end": 0.8}]}
        )
    )
    archival = api.read_evidence(out)
    assert archival.plain_quote and not archival.timed_quote
    assert archival.timing.status == "archival"


def test_owner_mismatch_fails_closed(tmp_path: Path) -> None:
    out = produce(tmp_path)
    (out.parent / "talk.en.vtt").write_text(caption_file(71))  # the owner artifact moved on
    report = api.read_evidence(out)
    assert report.plain_quote and not report.timed_quote
    assert report.timing.code == "artifact_hash_mismatch"
