"""Headless Chromium for the site's browser tests (not a test module).

Debian's ``chromium`` (installed by tools/bootstrap.sh) opens a page from
disk, waits on virtual time so every image has loaded, and writes a
screenshot. With ``--enable-logging=stderr`` every page console message is
logged as an ``INFO:CONSOLE`` line, so a script error, a CSP violation or a
blocked resource becomes a line the test can see.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from PIL import Image


@dataclass(frozen=True)
class Shot:
    image: Image.Image
    console: list[str]

    def count(self, rgb: tuple[int, int, int]) -> int:
        """Pixels of exactly this colour (solid areas: chart bars, table headers)."""
        return sum(n for n, colour in self.image.getcolors(1 << 24) or () if colour == rgb)

    def count_near(self, rgb: tuple[int, int, int], tolerance: int = 16) -> int:
        """Pixels within ``tolerance`` per channel (JPEG-coded PDF pages shift colours)."""
        import numpy as np

        pixels = np.asarray(self.image, dtype=np.int16)
        close = np.all(np.abs(pixels - np.array(rgb, dtype=np.int16)) <= tolerance, axis=-1)
        return int(close.sum())

    def distinct_colours(self) -> int:
        return len(self.image.getcolors(1 << 24) or ())


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "chromium is not installed: run tools/bootstrap.sh (Debian package chromium)"
    return found


def screenshot(page: Path, out: Path, *, width: int = 1280, height: int = 1400) -> Shot:
    profile = out.with_suffix(".profile")
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        f"--window-size={width},{height}",
        f"--screenshot={out}",
        page.resolve().as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and out.exists(), result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    with Image.open(out) as image:
        return Shot(image.convert("RGB"), console)
