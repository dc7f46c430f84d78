"""`make demo` runs every built owner stage end to end on the sample vault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "demo.py"


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, str(DEMO), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = result.stdout.split("\nSummary\n", 1)[1]
    done = [line.split("done", 1)[1].strip() for line in summary.splitlines() if "  done " in line]
    assert "returns-persistence: gate the worker's completed return" in done
    assert len(done) >= 12
    # what the demo says was built really is on disk, with valid receipts
    vault = out / "vault"
    database = json.loads((vault / "tracking-database.json").read_text())
    talk = next(t for t in database["talks"] if t["filename"] == "2025-05-14-the-quiet-slide.md")
    assert talk["_queue_claim"]["schema_version"] == 5
    assert (vault / "transcripts" / "Qu1etSl1de0.segments.json").is_file()
    assert (vault / "slides-rebuild" / "Qu1etSl1de0" / "Qu1etSl1de0.slide-region.pdf").is_file()
    # unbuilt stages are named, never faked
    for line in summary.splitlines():
        if "not built yet" in line:
            assert "analysis-writer" in line
