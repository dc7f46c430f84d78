"""``rvault-analysis site`` on a generated vault: content, determinism, escaping."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from markupsafe import escape
from rvault_analysis_writer.site import charts
from rvault_contracts.schemas import schema_issues
from rvault_returns_persistence.api import load_catalog
from rvault_testkit.plugin import run_cli
from site_vault import HOSTILE_QUOTE, HOSTILE_TITLE, QUOTE, Vault, build_vault


def site(vault: Vault, outdir: Path, *extra: str) -> Any:
    result = run_cli("rvault-analysis", "site", outdir, "--db", vault.db, "--outside-vault", *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert schema_issues("analysis-site-report", 1, result.json) == []
    return result.json


OLD_TALK = {
    "schema_version": 2,
    "filename": "2013-03-01-old-talk.md",
    "title": "An old talk",
    "date": "2013-03-01",
    "status": "processed",
    "rhetoric_notes": "Written before source-located citations existed.",
    "pattern_score": 3,
    "pattern_observations": {
        "patterns_detected": [
            {"pattern_id": "bookends", "evidence": "Opens and closes on the map.",
             "evidence_citations": []}
        ]
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, Path, Any]:
    root = tmp_path_factory.mktemp("site")
    # 18 talks: enough for the process pool (parallel.MIN_PARALLEL_ITEMS), so the
    # same-bytes test covers the parallel path
    vault = build_vault(root / "vault", talks=18, processed=5, pages=3, hostile=True)
    vault.talks.append(OLD_TALK)  # a historical analysis: no receipt, no evidence ledger v2
    vault.write_db()
    outdir = root / "out"
    return vault, outdir, site(vault, outdir)


def test_report_lists_every_file_and_the_index(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, report = built
    assert report["ok"] is True
    assert report["index"] == str(outdir / "index.html")
    assert report["talk_count"] == 19
    assert report["page_count"] == 6
    assert report["thumbnail_count"] == 15
    assert report["chart_count"] == 3
    assert report["durability_state"] == "durable"
    names = sorted(p.name for p in outdir.iterdir() if not p.name.startswith("."))
    assert names == sorted(report["written"])
    manifest = json.loads((outdir / "site.json").read_text())
    assert sorted(manifest["files"]) == sorted(set(names) - {"site.json"})
    assert manifest["catalog_fingerprint"] == load_catalog().fingerprint


def test_overview_row_per_talk_with_evidence_score_and_next_action(
    built: tuple[Vault, Path, Any],
) -> None:
    vault, outdir, _ = built
    index = (outdir / "index.html").read_text()
    body = index.split("<tbody>", 1)[1]
    assert body.count("<tr ") == 19
    for talk in vault.talks:
        assert html.escape(talk["filename"]) in index
    # processed talk 1 (current): transcript bundle from vtt-cleanup is valid and timed,
    # its authored PDF is trusted, nothing left to do
    row = _row(index, "2016-02-02-talk-0001.md")
    assert "transcript valid, timed" in row
    assert "slides trusted" in row
    assert ">none<" in row
    assert "gen-current" in row
    # legacy result (every 4th processed talk) says what to do
    legacy = _row(index, "2018-04-04-talk-0003.md")
    assert "legacy_unbaselineable" in legacy
    assert "reprocess under the current catalog" in legacy
    pending = _row(index, "2021-07-07-talk-0006.md")
    assert "claim it for a worker" in pending and "href=" not in pending
    assert "processed_partial" in _row(index, "2019-05-05-talk-0004.md")
    assert '<div class="card"><b>19</b> talks</div>' in index
    assert '<div class="card"><b>6</b> analysed</div>' in index


def _row(index: str, filename: str) -> str:
    rows = index.split("<tr ")
    return next(r for r in rows if f'<div class="filename">{filename}</div>' in r)


def test_talk_page_has_provenance_outcomes_citations_and_thumbnails(
    built: tuple[Vault, Path, Any],
) -> None:
    vault, outdir, _ = built
    talk = vault.talks[1]
    page = (outdir / "talk-2016-02-02-talk-0001.html").read_text()
    claim = talk["_queue_claim"]
    for key in ("result_payload_sha256", "run_id", "batch_id", "pattern_catalog_fingerprint"):
        assert f"<th>{key}</th>" in page
    assert f"<td>{claim['result_payload_sha256']}</td>" in page
    assert "source-verified" in page
    # one outcome row per persisted outcome, detections joined with their citations
    outcomes = talk["pattern_observations"]["pattern_outcomes"]
    table = page.split('<table id="outcomes"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == len(outcomes) + 1
    assert "Bookends" in table  # the catalog's name for the id
    assert "transcript line 3" in table and QUOTE in table
    assert "missing_required_source_coverage" in table
    thumbs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(thumbs) == 3  # every page of the promoted PDF, embedded in the page
    for encoded in thumbs:
        assert base64.b64decode(encoded)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 pages of slides/drive0001AbCdEf.pdf (authored PDF)" in page


def test_legacy_talk_page_is_labelled(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    page = (outdir / "talk-2018-04-04-talk-0003.html").read_text()
    assert "Legacy-unverified result" in page
    assert "excluded from current numeric baselines" in page
    assert "Legacy-unverified (archival prose" in page
    assert "source-verified</b>" not in page


def test_historical_analysis_without_receipt_is_shown_as_stored(
    built: tuple[Vault, Path, Any],
) -> None:
    _, outdir, _ = built
    assert "reprocess: no completed-claim receipt" in _row(
        (outdir / "index.html").read_text(), OLD_TALK["filename"]
    )
    page = (outdir / "talk-2013-03-01-old-talk.html").read_text()
    assert "No completed-claim receipt binds this analysis" in page
    assert "Evidence basis: <b>legacy-unverified</b>" in page
    assert "no citations: not source-verified" in page
    assert "detected (legacy)" in page


def test_hostile_strings_are_escaped_everywhere(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    for name in ("index.html", "talk-2015-01-01-talk-0000.html"):
        text = (outdir / name).read_text()
        assert "<script" not in text
        assert "<img src=x" not in text
        for tag in re.findall(r"<img\b[^>]*>", text):  # only our own images, no handler
            assert "onerror" not in tag
            source = re.search(r'src="([^"]+)"', tag).group(1)  # type: ignore[union-attr]
            assert source.startswith("data:image/png;base64,") or (outdir / source).is_file()
        assert str(escape(HOSTILE_TITLE)) in text
    page = (outdir / "talk-2015-01-01-talk-0000.html").read_text()
    assert str(escape(HOSTILE_QUOTE)) in page  # the citation quote, as text
    assert "&lt;script&gt;alert('notes')&lt;/script&gt;" in page  # Markdown raw HTML off
    assert 'href="javascript:' not in page


def test_same_inputs_same_bytes_and_rerun_changes_nothing(
    built: tuple[Vault, Path, Any], tmp_path: Path
) -> None:
    vault, outdir, first = built
    other = tmp_path / "again"
    second = site(vault, other)
    assert sorted(first["written"]) == sorted(second["written"])
    for name in first["written"]:
        assert (outdir / name).read_bytes() == (other / name).read_bytes(), name
    inodes = {name: (other / name).stat().st_ino for name in second["written"]}
    third = site(vault, other)
    assert third["written"] == []
    assert third["unchanged_count"] == len(inodes)
    assert third["durability_state"] == "unchanged"
    assert {name: (other / name).stat().st_ino for name in inodes} == inodes


def test_svg_charts_are_static_leather_svg(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    for name in ("chart-score-trend.svg", "chart-frequency.svg", "chart-coverage.svg"):
        svg = (outdir / name).read_text()
        root = ElementTree.fromstring(svg)  # well-formed SVG, text kept as text
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        tags = {element.tag.rsplit("}", 1)[-1] for element in root.iter()}
        assert "script" not in tags and "foreignObject" not in tags, name
        attributes = {key for element in root.iter() for key in element.attrib}
        assert not any(key.endswith("href") or key.startswith("on") for key in attributes)
        assert "id" not in attributes  # no generated ids to drift
    trend = (outdir / "chart-score-trend.svg").read_text()
    assert "Legacy / other-catalog results: not comparable" in trend
    assert "callback-humor" in (outdir / "chart-frequency.svg").read_text()


def test_charts_are_byte_stable_and_say_when_empty() -> None:
    first = [chart.svg for chart in charts.all_charts([], "f" * 64)]
    assert first == [chart.svg for chart in charts.all_charts([], "f" * 64)]
    trend, frequency, coverage = (svg.decode() for svg in first)
    assert "no talks scored yet" in trend and "no legacy results" in trend
    assert frequency.count("none detected") == 2
    assert "no talks yet" in coverage


def test_every_link_resolves_inside_the_site(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    pages = ["index.html", *sorted(p.name for p in outdir.glob("talk-*.html"))]
    linked = set()
    for name in pages:
        text = (outdir / name).read_text()
        for target in re.findall(r'(?:href|src)="([^"]+)"', text):
            if target.startswith("data:image/png;base64,"):
                continue
            assert "/" not in target and ":" not in target, (name, target)  # relative, no scheme
            assert (outdir / target).is_file(), (name, target)
            linked.add(target)
    assert set(pages) - {"index.html"} <= linked  # every talk page is reachable from the overview
