"""Headless Chromium driven over the DevTools protocol, for the site's browser tests.

Debian's ``chromium`` (installed by tools/bootstrap.sh) is started once per
test module with ``--remote-debugging-pipe``: protocol messages are
NUL-terminated JSON on file descriptors 3 (to the browser) and 4 (from it),
so no websocket library, no chromedriver and no open port are needed. A
page is opened from disk exactly as a person double-clicking it would (a
``file://`` URL, no flag that relaxes file access), scripts run, console
messages and exceptions are collected, and screenshots are PNG.
axe-core comes from npm (``tests/axe``, pinned by its package-lock.json,
installed by tools/bootstrap.sh) and is injected through the protocol.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Shot:
    image: Image.Image

    def count(self, rgb: tuple[int, int, int]) -> int:
        """Pixels of exactly this colour (solid areas: chart bars, badges)."""
        return sum(n for n, colour in self.image.getcolors(1 << 24) or () if colour == rgb)

    def count_near(self, rgb: tuple[int, int, int], tolerance: int = 16) -> int:
        """Pixels within ``tolerance`` per channel (rendered PDF pages shift colours)."""
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


def _high(pair: tuple[int, int]) -> tuple[int, int]:
    """The pipe's ends moved above fd 10, so wiring them to 3 and 4 clobbers neither."""
    import fcntl

    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in pair)
    for fd in pair:
        os.close(fd)
    return moved[0], moved[1]


class Browser:
    """One Chromium, one tab; :meth:`open` navigates it and resets the console log."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="rvault-chromium-")
        to_browser_r, self._to_browser = _high(os.pipe())
        self._from_browser, from_browser_w = _high(os.pipe())

        def wire() -> None:  # in the child: the protocol's fds 3 and 4 (dup2 clears CLOEXEC)
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(domain, session=True)

    # ------------------------------------------------------------------ protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            assert time.monotonic() < deadline, "Chromium did not answer in time"
            chunk = os.read(self._from_browser, 1 << 16)
            assert chunk, "Chromium closed the DevTools pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, *, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next:
                assert "error" not in reply, (method, reply["error"])
                return reply.get("result", {})
            self.events.append(reply)

    def _wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    # ------------------------------------------------------------------ pages

    def open(self, page: Path, query: str = "", *, width: int = 1280, height: int = 900) -> None:
        """Navigate to ``page`` from disk and wait for its load event."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.events.clear()
        self.call("Page.navigate", session=True, url=page.resolve().as_uri() + query)
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str, *, wait: bool = False) -> Any:
        result = self.call(
            "Runtime.evaluate",
            session=True,
            expression=expression,
            returnByValue=True,
            awaitPromise=wait,
        )
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def console(self) -> list[str]:
        """Console messages, uncaught exceptions and log entries (a CSP block is one)."""
        kinds = {"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"}
        return [json.dumps(e["params"])[:400] for e in self.events if e.get("method") in kinds]

    def screenshot(self, out: Path) -> Shot:
        """The whole page (beyond the viewport), written to ``out`` as PNG."""
        data = self.call(
            "Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True
        )["data"]
        png = base64.b64decode(data)
        out.write_bytes(png)
        with Image.open(io.BytesIO(png)) as image:
            return Shot(image.convert("RGB"))

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's violations on the open page (id, impact, help, node count)."""
        assert AXE.is_file(), f"{AXE} is missing: run tools/bootstrap.sh (npm ci of tests/axe)"
        self.evaluate(AXE.read_text(encoding="utf-8"))
        found = self.evaluate(
            "axe.run(document, {resultTypes: ['violations'], preload: false})"
            ".then(r => r.violations.map("
            "v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,"
            " targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))",
            wait=True,
        )
        return list(found)

    def close(self) -> None:
        with contextlib.suppress(AssertionError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)
