"""Screenshots of each page type for the README, taken by headless Chromium.

    .venv/bin/python tools/demo.py --vault /tmp/demo   # builds /tmp/demo/vault/report
    .venv/bin/python packages/analysis-writer/docs/screenshots.py /tmp/demo/vault/report

Writes ``site-overview.png``, ``site-talk.png`` and ``site-search.png`` beside
this file: the top of each page at 1280 px wide, reduced to a 96-colour
palette so the PNGs stay small. Uses the tests' DevTools-pipe browser.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import Browser  # noqa: E402

HEIGHT = 1500


def _save(source: Path, name: str, height: int = HEIGHT) -> None:
    with Image.open(source) as image:
        top = image.convert("RGB").crop((0, 0, image.width, min(height, image.height)))
        small = top.quantize(colors=96, method=Image.Quantize.MEDIANCUT)
        small.save(HERE / name, optimize=True)
    print(f"{name}: {(HERE / name).stat().st_size // 1024} KiB")


def main(site: Path, query: str) -> None:
    browser = Browser()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shot = Path(tmp) / "shot.png"
            browser.open(site / "index.html", width=1280, height=HEIGHT)
            browser.screenshot(shot)
            _save(shot, "site-overview.png")
            talk = sorted(site.glob("talk-*.html"))[0]
            browser.open(talk, width=1280, height=HEIGHT)
            browser.screenshot(shot)
            _save(shot, "site-talk.png", 2200)
            browser.open(site / "index.html", "?q=" + query.replace(" ", "%20"), height=900)
            browser.screenshot(shot)
            _save(shot, "site-search.png", 900)
    finally:
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "slide")
