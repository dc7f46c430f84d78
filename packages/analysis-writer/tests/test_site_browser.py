"""The generated site in a real browser: headless Chromium screenshots, asserted on."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import Shot, screenshot
from rvault_analysis_writer.site.charts import CURRENT_COLOR
from rvault_testkit.plugin import run_cli
from site_vault import SLIDE_HEADER, build_vault

TABLE_HEADER = (0xEE, 0xF1, 0xF5)  # thead/th background in style.css
PAGE_BACKGROUND = (0xF7, 0xF8, 0xFA)
PATTERN_BADGE = (0xDC, 0xEF, 0xDC)  # .kind-pattern background in style.css


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


@pytest.fixture(scope="module")
def outdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    vault = build_vault(root / "vault", talks=6, processed=3, pages=4, hostile=True)
    result = run_cli("rvault-analysis", "site", root / "site", "--db", vault.db, "--outside-vault")
    assert result.returncode == 0, result.stdout + result.stderr
    return root / "site"


def _not_blank(shot: Shot) -> None:
    assert shot.distinct_colours() > 200
    width, height = shot.image.size
    assert shot.count(PAGE_BACKGROUND) < 0.9 * width * height


def test_overview_in_chromium(outdir: Path, tmp_path: Path) -> None:
    shot = screenshot(outdir / "index.html", tmp_path / "index.png", height=2600)
    assert shot.console == []
    _not_blank(shot)
    assert shot.count(_rgb(CURRENT_COLOR)) > 2000  # the SVG charts were drawn
    assert shot.count(TABLE_HEADER) > 5000  # the talk table's header row


def test_hostile_talk_page_in_chromium(outdir: Path, tmp_path: Path) -> None:
    page = next(p for p in sorted(outdir.glob("talk-*.html")))
    shot = screenshot(page, tmp_path / "talk.png", height=5000)
    # an injected script would run (console output) or be blocked by the CSP (a console line)
    assert shot.console == []
    _not_blank(shot)
    assert shot.count(PATTERN_BADGE) > 300  # the detected patterns' badges
    assert shot.count_near(SLIDE_HEADER) > 4 * 2000  # four slide thumbnails rendered from the PDF
