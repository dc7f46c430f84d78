"""The generated site in a real browser: headless Chromium over the DevTools protocol.

One Chromium for the module (``browser.Browser``), pages opened from disk
as a double-click opens them (``file://``, no relaxing flag): the talk page
renders its patterns and its timeline, a phrase that only one transcript
holds finds that talk through the search, nothing logs to the console (an
injected script would run, or be blocked by the CSP, and either is a
line), and axe-core finds no serious or critical accessibility violation.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Browser
from rvault_analysis_writer.site.charts import CURRENT_COLOR
from rvault_testkit.plugin import run_cli
from site_vault import PUBLIC_VIDEO_ID, SLIDE_HEADER, SLIDE_PHRASE, UNIQUE_PHRASE, build_vault

PAGE_BACKGROUND = (0xF7, 0xF8, 0xFA)
UNIQUE_TALK = 2
TIMED_TALK = "talk-2016-02-02-talk-0001.html"  # site_vault: talk 1 has a public video


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


@pytest.fixture(scope="module")
def outdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    vault = build_vault(
        root / "vault", talks=6, processed=3, pages=4, hostile=True, unique_talk=UNIQUE_TALK
    )
    result = run_cli("rvault-analysis", "site", vault.root / "site", "--db", vault.db)
    assert result.returncode == 0, result.stdout + result.stderr
    return vault.root / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = Browser()
    try:
        yield chromium
    finally:
        chromium.close()


def _serious(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in ("serious", "critical")]


def test_overview_reads_and_passes_axe(browser: Browser, outdir: Path, tmp_path: Path) -> None:
    browser.open(outdir / "index.html")
    assert browser.console() == []
    shot = browser.screenshot(tmp_path / "index.png")
    assert shot.distinct_colours() > 200
    assert shot.count(_rgb(CURRENT_COLOR)) > 2000  # the SVG charts were drawn
    label = browser.evaluate("document.querySelector('label[for=q]').textContent")
    assert label == "Search transcripts, analyses and slides"
    assert _serious(browser.axe()) == []


def test_talk_page_renders_patterns_and_timeline(
    browser: Browser, outdir: Path, tmp_path: Path
) -> None:
    browser.open(outdir / TIMED_TALK)
    assert browser.console() == []
    findings = browser.evaluate(
        "Array.from(document.querySelectorAll('article.finding')).map(a => "
        "[a.id, a.closest('section').id, a.getBoundingClientRect().height > 40])"
    )
    assert [f[0] for f in findings] == [
        "finding-bookends",
        "finding-callback-humor",
        "finding-reading-the-slides",
    ]
    assert all(section == "patterns" and drawn for _, section, drawn in findings)
    strip = browser.evaluate(
        "(() => { const s = document.querySelector('svg.timeline');"
        " const r = s.getBoundingClientRect();"
        " return {width: r.width, height: r.height,"
        " links: Array.from(s.querySelectorAll('a')).map(a => a.getAttribute('href')),"
        " marks: Array.from(s.querySelectorAll('circle, polygon'))"
        ".map(m => Math.round(m.getBoundingClientRect().x))}; })()"
    )
    assert strip["width"] > 800 and strip["height"] > 50
    watch = f"https://www.youtube.com/watch?v={PUBLIC_VIDEO_ID}&t="
    assert strip["links"] == [f"{watch}2s", f"{watch}39s", f"{watch}76s"]
    assert strip["marks"] == sorted(strip["marks"]) and len(set(strip["marks"])) == 3
    quote_link = browser.evaluate("document.querySelector('#finding-bookends a.at').href")
    assert quote_link == f"{watch}2s"  # the cited moment links to the recording at that second
    shot = browser.screenshot(tmp_path / "talk.png")
    assert shot.count_near(SLIDE_HEADER) > 4 * 2000  # four slide thumbnails from the PDF
    assert _serious(browser.axe()) == []


def test_search_finds_the_one_transcript_holding_a_phrase(browser: Browser, outdir: Path) -> None:
    browser.open(outdir / "index.html")
    hits = browser.evaluate(
        "(() => { document.getElementById('q').value = "
        f"'{UNIQUE_PHRASE}'; document.getElementById('search').requestSubmit();"
        " return Array.from(document.querySelectorAll('#search-results li')).map(li =>"
        " [li.querySelector('a.hit-title').getAttribute('href'),"
        " li.querySelector('.hit-label').textContent]); })()"
    )
    assert len(hits) == 1, hits
    page, label = hits[0]
    assert page == "talk-2017-03-03-talk-0002.html"  # talk 2 of site_vault
    assert label.startswith("transcript: lines ") and ", at " in label
    status = browser.evaluate("document.getElementById('search-status').textContent")
    assert status.startswith("1 result for")
    # a phrase every transcript shares finds every analysed talk, from the query string
    browser.open(outdir / "index.html", "?q=worst%20deploy%20of%20my%20life")
    pages = browser.evaluate(
        "Array.from(new Set(Array.from(document.querySelectorAll('#search-results a.hit-title'))"
        ".map(a => a.getAttribute('href'))))"
    )
    assert len(pages) == 3
    # slide text (the PDF's text layer) leads to the slide on its talk page
    browser.open(outdir / "index.html", "?q=" + SLIDE_PHRASE.replace(" ", "%20"))
    slides = browser.evaluate(
        "Array.from(document.querySelectorAll('#search-results li.hit-slide a.hit-title'))"
        ".map(a => a.getAttribute('href'))"
    )
    assert sorted(slides) == [f"talk-2017-03-03-talk-0002.html#slide-{n}" for n in range(1, 5)]
    assert browser.console() == []


def test_hostile_talk_page_runs_nothing(browser: Browser, outdir: Path) -> None:
    page = next(p for p in sorted(outdir.glob("talk-2015-*.html")))
    browser.open(page)
    assert browser.evaluate("document.scripts.length") == 0
    assert browser.evaluate("document.querySelectorAll('img[onerror]').length") == 0
    assert browser.console() == []


def test_axe_sees_a_violation_when_there_is_one(browser: Browser, outdir: Path) -> None:
    """The checker is live: an unlabelled image added to the page is reported."""
    browser.open(outdir / TIMED_TALK)
    browser.evaluate(
        "document.querySelector('main').appendChild(Object.assign("
        "document.createElement('img'), {src: 'chart-coverage.svg'})); 1"
    )
    assert "image-alt" in {v["id"] for v in _serious(browser.axe())}


def test_talk_page_prints_with_its_details_open(browser: Browser, outdir: Path) -> None:
    browser.open(outdir / TIMED_TALK)
    probe = (
        "[document.querySelector('table.provenance').checkVisibility(),"
        " getComputedStyle(document.querySelector('header.site')).display]"
    )
    assert browser.evaluate(probe) == [False, "flex"]  # on screen: provenance folded away
    browser.call("Emulation.setEmulatedMedia", session=True, media="print")
    try:
        assert browser.evaluate(probe) == [True, "none"]  # printed: open, no site header
    finally:
        browser.call("Emulation.setEmulatedMedia", session=True, media="")
