"""Tesseract OCR of one image blob, called as a subprocess.

Debian's ``tesseract-ocr`` reads the blob on stdin and writes word-level TSV
on stdout, so nothing touches the disk (the extraction worker may not write
files) and the worker's resource limits and the supervisor's RSS sampling
cover the engine too. The receipt statuses follow from the word
confidences: no word is ``genuine_empty``; a mean word confidence of at least
``TRUSTWORTHY_MEAN_CONFIDENCE`` is ``text_recovered`` (the only trustworthy
outcome); anything lower is ``low_confidence_text``. Failures carry a short,
closed error string, never the engine's raw output.

``RVAULT_PPTX_TESSERACT`` names another tesseract command (a path, or a name
that is not installed to see the ``ocr_engine_unavailable`` outcome).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

ENGINE = "tesseract"
ENGINE_ENV = "RVAULT_PPTX_TESSERACT"
TRUSTWORTHY_MEAN_CONFIDENCE = 80.0
MAX_RECOVERED_CHARS = 8000
MAX_IMAGE_PIXELS = 40_000_000  # beyond this the engine's own decode is the risk
MAX_ASSET_BYTES = 64 * 1024 * 1024
TIMEOUT_SECONDS = 60.0
LANGUAGE = "eng"


@dataclass(frozen=True)
class OcrResult:
    status: str  # text_recovered | low_confidence_text | genuine_empty | failed
    confidence: float | None
    text: str
    error: str | None

    @property
    def trustworthy(self) -> bool:
        return self.status == "text_recovered"


@dataclass(frozen=True)
class Engine:
    command: str
    version: str


def _environment() -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OMP_THREAD_LIMIT": "1"}
    if "TESSDATA_PREFIX" in os.environ:
        env["TESSDATA_PREFIX"] = os.environ["TESSDATA_PREFIX"]
    return env


@cache
def detect() -> Engine | None:
    """The installed engine and its version, or None when it cannot be run."""
    command = shutil.which(os.environ.get(ENGINE_ENV) or ENGINE)
    if command is None:
        return None
    try:
        probe = subprocess.run(
            [command, "--version"],
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            env=_environment(),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = (probe.stdout or probe.stderr).decode("utf-8", "replace").splitlines()
    words = first[0].split() if first else []
    if probe.returncode != 0 or len(words) < 2 or words[0] != ENGINE:
        return None
    return Engine(command, words[1])


def _pixels(blob: bytes) -> int | None:
    """Declared pixel count from the image header (no pixels are decoded)."""
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(blob)) as image:
                return int(image.size[0]) * int(image.size[1])
    except Image.DecompressionBombError:
        return MAX_IMAGE_PIXELS + 1
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def _parse_tsv(tsv: str) -> tuple[str, float | None]:
    """Recovered text (lines in reading order) and the mean word confidence."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5":
            continue
        word = cells[11].strip()
        try:
            confidence = float(cells[10])
        except ValueError:
            continue
        if not word or confidence < 0:
            continue
        lines.setdefault((cells[2], cells[3], cells[4]), []).append(word)
        confidences.append(min(confidence, 100.0))
    text = "\n".join(" ".join(words) for words in lines.values())
    mean = round(sum(confidences) / len(confidences), 2) if confidences else None
    return text, mean


def recognize(engine: Engine, blob: bytes) -> OcrResult:
    """OCR one raster blob; every failure is a closed ``failed`` result."""
    if len(blob) > MAX_ASSET_BYTES:
        return OcrResult("failed", None, "", "asset_too_large")
    pixels = _pixels(blob)
    if pixels is None:
        return OcrResult("failed", None, "", "image_undecodable")
    if pixels > MAX_IMAGE_PIXELS:
        return OcrResult("failed", None, "", "image_too_large")
    try:
        run = subprocess.run(
            [engine.command, "stdin", "stdout", "-l", LANGUAGE, "tsv"],
            input=blob,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            env=_environment(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return OcrResult("failed", None, "", "engine_timeout")
    except OSError:
        return OcrResult("failed", None, "", "engine_not_runnable")
    if run.returncode != 0:
        return OcrResult("failed", None, "", f"engine_exit_{run.returncode}")
    text, mean = _parse_tsv(run.stdout.decode("utf-8", "replace"))
    if not text:
        return OcrResult("genuine_empty", None, "", None)
    status = (
        "text_recovered"
        if mean is not None and mean >= TRUSTWORTHY_MEAN_CONFIDENCE
        else "low_confidence_text"
    )
    return OcrResult(status, mean, text[:MAX_RECOVERED_CHARS], None)
