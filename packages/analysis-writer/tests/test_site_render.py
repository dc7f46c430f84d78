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


SEARCH_SCRIPTS = ("minisearch.js", "search-index.js", "search.js")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, Path, Any]:
    root = tmp_path_factory.mktemp("site")
    # 18 talks: enough for the process pool (parallel.MIN_PARALLEL_ITEMS), so the
    # same-bytes test covers the parallel path
    vault = build_vault(root / "vault", talks=18, processed=5, pages=3, hostile=True)
    vault.talks.append(OLD_TALK)  # a historical analysis: no receipt, no evidence ledger v2
    # what a worker copies from a local run: absolute paths inside and outside the vault
    vault.talks[2]["structured_data"]["video_extraction"] = {
        "source_video_path": f"{vault.root}/slides-rebuild/x/x.mp4",
        "work_dir": "/tmp/rvault-work-1234/frames",
    }
    vault.talks[2]["rhetoric_notes"] += f"\n\nFrames were in {vault.root}/slides-rebuild/x."
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


def test_talk_page_leads_with_the_analysis_and_groups_by_dimension(
    built: tuple[Vault, Path, Any],
) -> None:
    vault, outdir, _ = built
    talk = vault.talks[1]
    page = (outdir / "talk-2016-02-02-talk-0001.html").read_text()
    headings = re.findall(r"<h2 id=\"[a-z-]+\">([^<]+)", page)
    assert headings[:4] == ["Pattern score ", "Rhetoric notes", "Areas for improvement", "Timeline"]
    assert headings[-1] == "Provenance and raw data"
    assert '<p class="event">PyCon &middot; 2016-02-02</p>' in page
    # 2 patterns, 1 antipattern (site_vault._observations for index 1): score 1, explained
    assert '<span class="score-value">1</span>' in page
    assert "2 patterns detected minus 1 antipattern detected" in page
    # findings under their primary dimension, in the catalog's dimension order
    groups = page.split('id="patterns-h"', 1)[1].split('id="other-h"', 1)[0]
    dimensions = re.findall(r"<h3>([^<]+)</h3>", groups)
    assert dimensions == ["Opening Pattern", "Humor &amp; Wit", "Slide-to-Speech Relationship"]
    assert 'id="finding-bookends"' in groups and "Bookends" in groups
    # the quote with its line and the time the timing receipt gives that line
    assert f"<p>{QUOTE}</p><footer>transcript line 3, said at " in groups
    assert 'href="https://www.youtube.com/watch?v=dQw4w9WgXcQ&amp;t=2s">0:02</a>' in groups
    # outcomes without a detection: a compact list with the reason
    other = page.split('id="other-h"', 1)[1].split("</section>", 1)[0]
    assert "<h3>Not evaluable (1)</h3>" in other
    assert "missing_required_source_coverage; needs static_slides" in other
    # provenance and raw data at the end, inside <details>
    raw = page.split('id="raw-h"', 1)[1]
    for key in ("result_payload_sha256", "run_id", "batch_id", "pattern_catalog_fingerprint"):
        assert f'<th scope="row">{key}</th>' in raw
    claim = talk["_queue_claim"]
    assert f"<td>{claim['result_payload_sha256']}</td>" in raw
    assert raw.count("<details>") == 4
    assert "result_payload_sha256" not in page.split('id="raw-h"', 1)[0]
    thumbs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(thumbs) == 3  # every page of the promoted PDF, embedded in the page
    for encoded in thumbs:
        assert base64.b64decode(encoded)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 pages of slides/drive0001AbCdEf.pdf (authored PDF)" in page


def test_timeline_places_cited_moments_on_the_talk_axis(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    page = (outdir / "talk-2016-02-02-talk-0001.html").read_text()
    figure = page.split('<figure class="timeline">', 1)[1].split("</figure>", 1)[0]
    svg = ElementTree.fromstring(figure.split("<figcaption>", 1)[0])
    tags = {element.tag.rsplit("}", 1)[-1] for element in svg.iter()}
    assert "script" not in tags and "foreignObject" not in tags
    assert not any(key == "style" or key.startswith("on") for e in svg.iter() for key in e.attrib)
    links = [e for e in svg.iter() if e.tag.endswith("}a")]
    assert len(links) == 3  # one moment per detection: lines 3, 40 and 77 (site_vault._spread)
    watch = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t="
    # a line per second in the generated captions: line n starts at n-1 s
    assert [e.get("href") for e in links] == [f"{watch}2s", f"{watch}39s", f"{watch}76s"]
    assert "Bookends at 0:02 in the recording on YouTube" in (links[0].get("aria-label") or "")
    # the talk without a public video names the recording it has none of, links the finding
    other = (outdir / "talk-2017-03-03-talk-0002.html").read_text()
    assert 'href="#finding-' in other.split('<section id="timeline"', 1)[1].split("</section>")[0]
    assert "none is linked to this talk" in other


def test_no_absolute_path_anywhere_in_the_site(built: tuple[Vault, Path, Any]) -> None:
    vault, outdir, _ = built
    files = sorted(p for p in outdir.iterdir() if not p.name.startswith("."))
    assert len(files) > 8
    for path in files:
        text = path.read_text(encoding="utf-8")
        for absolute in (str(vault.root), str(outdir), "/tmp/", str(Path.home())):
            assert absolute not in text, (path.name, absolute)
        assert re.search(r'(?:href|src)="(?:file:|/)', text) is None, path.name
    page = (outdir / "talk-2017-03-03-talk-0002.html").read_text()
    assert "<td>slides-rebuild/x/x.mp4</td>" in page  # inside the vault: vault-relative
    assert "<td>[path outside the vault]</td>" in page
    assert "Frames were in slides-rebuild/x." in page


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
    assert "No citations: not source-verified." in page
    assert "No outcome matrix (legacy ledger)." in page


def test_hostile_strings_are_escaped_everywhere(built: tuple[Vault, Path, Any]) -> None:
    _, outdir, _ = built
    for name in ("index.html", "talk-2015-01-01-talk-0000.html"):
        text = (outdir / name).read_text()
        scripts = re.findall(r"<script\b[^>]*>", text)  # only the search's own files
        assert set(scripts) <= {f'<script src="{n}" defer>' for n in SEARCH_SCRIPTS}, scripts
        assert (name == "index.html") == bool(scripts)
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
            if target.startswith("#"):  # a finding on the same page
                assert f'id="{target[1:]}"' in text, (name, target)
                continue
            if target.startswith("https://www.youtube.com/watch?v="):  # a moment of a recording
                assert re.fullmatch(r"[^?]+\?v=[\w-]{11}&amp;t=\d+s", target), target
                continue
            assert "/" not in target and ":" not in target, (name, target)  # relative, no scheme
            target, _, fragment = target.partition("#")
            assert (outdir / target).is_file(), (name, target)
            if fragment:
                assert f'id="{fragment}"' in (outdir / target).read_text(), (name, fragment)
            linked.add(target)
    assert set(pages) - {"index.html"} <= linked  # every talk page is reachable from the overview


def test_no_search_builds_a_site_without_any_script(
    built: tuple[Vault, Path, Any], tmp_path: Path
) -> None:
    vault, outdir, _ = built
    bare = tmp_path / "bare"
    report = site(vault, bare, "--no-search")
    assert not any(name.endswith(".js") for name in report["written"])
    index = (bare / "index.html").read_text()
    assert "<script" not in index and 'id="search"' not in index
    with_search = {p.name for p in outdir.iterdir()} - {p.name for p in bare.iterdir()}
    assert with_search == {*SEARCH_SCRIPTS, "minisearch-license.txt"}
    # the talk pages are the same bytes with or without the search
    for page in outdir.glob("talk-*.html"):
        assert (bare / page.name).read_bytes() == page.read_bytes()
