"""The overview shows the coaching loop: each goal as the owner judges it, and what the
talks taught the catalog.

The goal is set the way a speaker sets it (``rvault-db goals set``, dry run then
apply) on a persisted two-talk batch where ``narrative-arc`` was detected in
both talks; the catalog feedback comes from the batch's RETURNS.json, counted
only under the receipts persist stored.
"""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path

from analysis_testdata import completed_batch
from rvault_testkit.plugin import run_cli


def _set_goal(db: Path) -> None:
    args = (
        "goals", "set", str(db), "--id", "more-arcs", "--kind", "underuse",
        "--pattern", "narrative-arc", "--issue", "tell every talk as a story",
        "--target", "0.9", "--set-date", "2020-01-01",
    )  # fmt: skip
    dry = run_cli("rvault-db", *args)
    assert dry.returncode == 0, dry.stdout
    program, *words = shlex.split(dry.json["next_command"])
    assert run_cli(program, *words).returncode == 0


def _section(page: str, anchor: str) -> str:
    return page.split(f'<section id="{anchor}"', 1)[1].split("</section>", 1)[0]


def test_overview_shows_goals_and_aggregated_catalog_feedback(tmp_path: Path) -> None:
    batch = completed_batch(tmp_path)
    _set_goal(batch.db)
    outdir = batch.db.parent / "site"
    result = run_cli(
        "rvault-analysis", "site", outdir, "--db", batch.db, "--returns", batch.returns_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    index = (outdir / "index.html").read_text(encoding="utf-8")

    goals = _section(index, "goals")
    assert "tell every talk as a story" in goals and "narrative-arc" in goals
    assert "2 of 2 talks (1.00)" in goals  # baseline and now
    assert "at or above 0.90" in goals
    assert 'class="status status-achieved"' in goals
    assert "rvault-db goals verify" in goals  # judged achieved, recorded still active
    assert '<svg class="trend" role="img"' in goals and "aria-label=" in goals
    assert 'href="talk-2024-01-01-a.html"' in goals

    feedback = html.unescape(_section(index, "catalog-feedback"))
    assert "What the talks taught the catalog" in feedback
    for name in ("bookends", "callback-humor", "progress-map"):
        assert f"<code>{name}</code>" in feedback
    assert "confusable pairs 2" in feedback  # the same pair from both talks


def test_feedback_from_returns_no_receipt_names_is_not_counted(tmp_path: Path) -> None:
    batch = completed_batch(tmp_path)
    draft = json.loads(batch.returns_path.read_text())
    for ret in draft:
        ret["rhetoric_notes"] += " (a later draft)"  # another hash: no stored receipt
    drafts = tmp_path / "drafts.json"
    drafts.write_text(json.dumps(draft))
    outdir = batch.db.parent / "site"
    result = run_cli("rvault-analysis", "site", outdir, "--db", batch.db, "--returns", drafts)
    assert result.returncode == 0, result.stdout + result.stderr
    index = (outdir / "index.html").read_text(encoding="utf-8")
    assert 'id="catalog-feedback"' not in index
    assert 'id="goals"' not in index  # no goal was set
