"""Catalog feedback on the talk page: only from the return its receipt names.

``catalog_feedback`` is not stored on the talk, so ``site --returns`` reads
the batch file exactly as ``write`` does and shows a return's feedback only
on the page of the talk whose completed claim holds that return's canonical
hash. A changed return (another hash) is never shown.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis_testdata import completed_batch
from rvault_testkit.plugin import run_cli

A, B = "2024-01-01-a.md", "2024-02-01-b.md"
PAGE_A, PAGE_B = "talk-2024-01-01-a.html", "talk-2024-02-01-b.html"


def _feedback_section(page: str) -> str:
    return page.split('<section id="feedback"', 1)[1].split("</section>", 1)[0]


def test_feedback_is_shown_only_under_its_receipt(tmp_path: Path) -> None:
    batch = completed_batch(tmp_path)
    outdir = batch.db.parent / "site"
    changed = json.loads(batch.returns_path.read_text())
    changed[1]["catalog_feedback"]["tensions"] = [{"pattern_ids": ["x"], "detail": "edited later"}]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(changed[1]))
    result = run_cli(
        "rvault-analysis", "site", outdir, "--db", batch.db,
        "--returns", batch.returns_path, "--returns", edited,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    shown = _feedback_section((outdir / PAGE_A).read_text())
    assert "<h3>Unmatched observations</h3>" in shown
    assert "A recurring hand-drawn map marks progress" in shown
    assert "both close on the opener" in shown
    assert shown.count("None reported.") == 3  # tensions, definition and scoring problems
    assert "edited later" not in (outdir / PAGE_B).read_text()  # not the receipt's return


def test_without_returns_the_page_says_where_feedback_lives(tmp_path: Path) -> None:
    batch = completed_batch(tmp_path)
    outdir = batch.db.parent / "site"
    result = run_cli("rvault-analysis", "site", outdir, "--db", batch.db)
    assert result.returncode == 0, result.stdout + result.stderr
    shown = _feedback_section((outdir / PAGE_A).read_text())
    assert "Pass the batch&#39;s RETURNS.json with --returns" in shown
    assert "hand-drawn map" not in shown


def test_unreadable_returns_file_is_refused_like_write(tmp_path: Path) -> None:
    batch = completed_batch(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('[{"filename": "a", "filename": "b"}]')
    outdir = batch.db.parent / "site"
    result = run_cli("rvault-analysis", "site", outdir, "--db", batch.db, "--returns", broken)
    assert result.returncode == 2
    assert result.json["error"]["code"] == "returns_duplicate_key"
    assert not outdir.exists()
