"""`make demo` runs the main job end to end, and what it says it did is on disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# One worker runs this module (make test: --dist loadgroup), so its module
# fixture (the demo) is built once, not once per xdist worker.
pytestmark = pytest.mark.xdist_group("demo")

DEMO = Path(__file__).resolve().parent.parent / "demo.py"
TALK, SPOKEN = "2025-05-14-the-quiet-slide.md", "2024-10-02-arguments-that-land.md"
STAGES = [
    "tracking-db: initialize the vault",
    "tracking-db: import talks from the shownotes site",
    "tracking-db: check the migration",
    "transcript: import the first talk's captions",
    "transcript: transcribe the second talk's speech with local Whisper",
    "pptx-evidence: extract the native deck (with OCR) and record it",
    "video-extraction: recover slides from the recording (verified region)",
    "video-extraction: promote the trusted slide PDF and record it",
    "tracking-db: derive source capabilities",
    "returns-persistence: fingerprint the pattern catalog",
    "tracking-db: claim the talk for a worker",
    "returns-persistence: scaffold the worker return",
    "returns-persistence: gate the worker's completed return",
    "returns-persistence: persist the batch into the tracking database",
    "analysis-writer: render the receipt-bound analysis Markdown",
    "analysis-writer: render the vault report (static HTML)",
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    home = tmp_path_factory.mktemp("demo") / "demo-vault"
    result = subprocess.run(
        [sys.executable, str(DEMO), "--vault", str(home)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    return home, result.stdout


def test_every_stage_runs_for_real(demo: tuple[Path, str]) -> None:
    _, stdout = demo
    ledger = stdout.split("\nStages\n", 1)[1].split("\nThe vault now holds\n", 1)[0]
    done = [line.split("done", 1)[1].strip() for line in ledger.splitlines() if "  done " in line]
    assert len(done) == len(STAGES)
    for stage, line in zip(STAGES, done, strict=True):
        assert line.startswith(stage), (stage, line)
    assert "not built yet" not in stdout


def test_the_vault_holds_what_the_demo_reports(demo: tuple[Path, str]) -> None:
    home, stdout = demo
    vault = home / "vault"
    database = json.loads((vault / "tracking-database.json").read_text())
    talks = {t["filename"]: t for t in database["talks"]}
    quiet, spoken = talks[TALK], talks[SPOKEN]
    assert quiet["status"] == "processed"
    claim = quiet["_queue_claim"]
    assert (claim["schema_version"], claim["state"]) == (5, "completed")
    assert len(claim["result_payload_sha256"]) == 64
    assert quiet["slides_local_path"] == "slides/Qu1etSl1de0.pdf"
    assert quiet["slide_source"] == "video_extracted"
    assert (vault / "slides" / "Qu1etSl1de0.pdf").is_file()
    assert (vault / "transcripts" / "Qu1etSl1de0.segments.json").is_file()
    assert spoken["transcript_path"] == "transcripts/ArgLand2024.txt"
    assert spoken.get("transcript_source") == "whisper"
    assert (vault / "transcripts" / "ArgLand2024.quality.json").is_file()

    analysis = vault / "analyses" / TALK
    assert analysis.is_file()
    text = analysis.read_text()
    assert "The Quiet Slide" in text and claim["result_payload_sha256"] in text
    index = vault / "report" / "index.html"  # the site refuses an OUTDIR outside the vault
    assert index.is_file() and "The Quiet Slide" in index.read_text()

    summary = stdout.split("\nThe vault now holds\n", 1)[1]
    assert f"analysis: {analysis}" in summary
    assert f"vault report: {index}" in summary
    rows = {line.split()[0]: line for line in summary.splitlines() if line.strip().endswith(".md")
            or ".md " in line}  # fmt: skip
    assert "processed" in rows[TALK]
    # Whisper on the speaker's own recording, attached as local media: the receipts verify.
    assert "unverified" not in rows[SPOKEN] and "valid" in rows[SPOKEN]


def test_an_existing_directory_that_is_not_a_demo_is_refused(tmp_path: Path) -> None:
    keep = tmp_path / "precious"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    result = subprocess.run(
        [sys.executable, str(DEMO), "--vault", str(keep)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0
    assert "not a demo directory" in result.stderr
    assert (keep / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in keep.iterdir()) == ["notes.txt"]
