"""transcript fetch result, timing v2 and quality v1 -> tracking-db (source capabilities).

The database owner maps the fetch result's method to ``transcript_source``
(never backfilling a guess for ``existing``) and counts a local transcript
as a capability only when its quality receipt is current. This runs the
real ``rvault-transcript vtt-cleanup`` console script and reads its output
and receipts through ``rvault_transcript.api``.
"""

from __future__ import annotations

from pathlib import Path

from rvault_contracts.schemas import is_valid
from rvault_testkit.plugin import run_cli
from rvault_transcript import api

COVERS = [
    ("transcript-fetch-result", "transcript", "tracking-db"),
    ("transcript-timing", "transcript", "tracking-db"),
    ("transcript-quality", "transcript", "tracking-db"),
]


def caption_file(lines: int) -> str:
    cues = []
    for i in range(lines):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        cues.append(f"{at}.000 --> {at}.900 line:90%\nwe discuss point {i} in <i>detail</i> now")
    return "WEBVTT\n\nNOTE exported by a captioning tool\n\n" + "\n\n".join(cues) + "\n"


def test_fetch_result_and_capability(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "source.vtt").write_text(caption_file(70))
    out = transcripts / "infoq-talk.txt"
    result = run_cli("rvault-transcript", "vtt-cleanup", transcripts / "source.vtt", out)
    assert result.returncode == 0, result.stderr
    document = result.json
    assert api.validate_fetch_result(document) == []
    assert is_valid("transcript-fetch-result", 1, document)
    # vtt and existing results carry no provenance claim: the database keeps its value.
    assert document["transcript_source"] is None
    assert Path(document["quality_path"]) == api.quality_path_for(out)
    assert Path(document["timed_path"]) == api.timing_path_for(out)
    capability = api.read_quality(out)
    assert capability.usable and capability.receipt is not None
    assert capability.receipt.word_count == document["word_count"] == 490
    assert api.read_timing(out).usable


def test_missing_or_broken_quality_is_not_a_capability(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "source.vtt").write_text(caption_file(70))
    out = transcripts / "talk.txt"
    assert (
        run_cli("rvault-transcript", "vtt-cleanup", transcripts / "source.vtt", out).returncode == 0
    )
    quality = api.quality_path_for(out)
    broken = quality.read_text().replace('"min_words": 400', '"min_words": 30')
    quality.write_text(broken)
    assert api.read_quality(out).code == "policy_floor_too_low"
    quality.unlink()
    assert api.read_quality(out).status == "missing"
    assert not api.read_evidence(out).plain_quote
