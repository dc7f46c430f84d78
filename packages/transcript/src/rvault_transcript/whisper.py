"""Local transcription with faster-whisper (CTranslate2), language detected first.

Embedded models (:mod:`rvault_transcript.models`): the multilingual
faster-whisper base detects the spoken language from the first speech; English
is then transcribed with tiny.en (measured faster at equal accuracy, see the
benchmark), any other language with base in that language. The reported
language is always what detection (or a multilingual model's own detection)
said, never a default.

``--model`` or ``RVAULT_WHISPER_MODEL`` select another model (a
faster-whisper size name or a CTranslate2 directory). A multilingual model
detects and transcribes on its own; an English-only one is still preceded by
detection with base and refuses non-English speech (``language_unsupported``)
instead of returning English-sounding gibberish. CUDA is used when
CTranslate2 sees a device (float16), otherwise the CPU (int8). Progress goes
to stderr as segments arrive.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, BinaryIO

from rvault_transcript.language import AUDIO_DETECTOR, Detection
from rvault_transcript.models import ModelDataError, english_model_dir, multilingual_model_dir

MODEL_ENV = "RVAULT_WHISPER_MODEL"
# Measured on the 2-core CI machine (benchmarks/run.py): batched decoding of
# VAD chunks, two at a time, with beam 5 gives the lowest word error rate of
# the configurations tried, stays under 500 MB peak RSS and runs well above
# realtime; sequential decoding with timestamps conditions on its own errors.
DEFAULT_BEAM_SIZE = 5
DEFAULT_BATCH_SIZE = 2
# Detection looks at the speech in the first minute (silence and music before
# a talk are skipped by VAD) and encodes one 15-second window. VAD over two
# minutes cost 0.3 CPU seconds, a third of the detection budget.
DETECTION_SCAN_SECONDS = 60
DETECTION_WINDOW_FRAMES = 1500  # 15 s of log-mel frames (100 per second)
SAMPLE_RATE = 16_000
HOP_SAMPLES = SAMPLE_RATE // 100
# On the CPU, int8 weights with float32 activations load base in 0.3 s and
# detect in 0.5 s; plain int8 took 0.7 s and 0.6-0.9 s (benchmark).
CPU_COMPUTE_TYPE = "int8_float32"


class ModelUnavailable(Exception):
    """The requested Whisper model cannot be loaded: a refused input, not a crash."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class LanguageUnsupported(Exception):
    """The chosen English-only model cannot transcribe the detected language."""

    def __init__(self, name: str, language: str, probability: float) -> None:
        super().__init__(f"{name}: detected {language} ({probability:.2f})")
        self.name = name
        self.language = language
        self.probability = probability


@dataclass(frozen=True)
class LanguageGuess:
    language: str
    probability: float
    seconds: float
    """Wall time of detection, model load included."""


@dataclass(frozen=True)
class WhisperResult:
    language: str
    duration_seconds: float
    segments: list[tuple[str, float, float]]
    model: str
    device: str
    language_probability: float | None = None

    @property
    def detection(self) -> Detection:
        """The languages of the speech with their shares (one window: the whole of it)."""
        return Detection(AUDIO_DETECTOR, ((self.language, 1.0),))


def default_model() -> str:
    return str(english_model_dir())


def requested_model(requested: str | None) -> str | None:
    """--model beats the environment variable; None means the embedded pair."""
    if requested:
        return requested
    return os.environ.get(MODEL_ENV, "").strip() or None


def resolve_model(requested: str | None) -> str:
    """The model a transcription of English speech would use."""
    return requested_model(requested) or default_model()


def choose_device() -> tuple[str, str]:
    """(device, compute_type): CUDA float16 when present, else CPU int8."""
    import ctranslate2

    try:
        if ctranslate2.get_cuda_device_count() > 0:
            return "cuda", "float16"
    except Exception:  # noqa: BLE001 - a broken CUDA runtime means CPU
        pass
    return "cpu", CPU_COMPUTE_TYPE


@lru_cache(maxsize=4)
def _load(name: str) -> Any:
    from faster_whisper import WhisperModel

    device, compute_type = choose_device()
    try:
        return WhisperModel(
            name, device=device, compute_type=compute_type, cpu_threads=os.cpu_count() or 1
        )
    except Exception as exc:  # noqa: BLE001 - unknown size, missing/broken directory, no network
        raise ModelUnavailable(name, f"{type(exc).__name__}: {exc}") from None


def _release_models() -> None:
    """Drop every loaded model so its memory goes back before the next one loads."""
    import gc

    _load.cache_clear()
    gc.collect()


def _multilingual() -> tuple[str, Any]:
    try:
        name = str(multilingual_model_dir())
    except ModelDataError as error:
        raise ModelUnavailable(error.name, error.message) from None
    except OSError as error:
        raise ModelUnavailable(
            str(error.filename or "model cache"),
            f"the multilingual model cannot be cached ({error.strerror}); set RVAULT_MODEL_CACHE"
            " to a writable directory",
        ) from None
    return name, _load(name)


def _speech_head(audio: Any) -> Any:
    """Up to 15 s of the speech VAD finds in the first minute (else the raw head)."""
    import numpy as np
    from faster_whisper.vad import collect_chunks, get_speech_timestamps

    head = audio[: DETECTION_SCAN_SECONDS * SAMPLE_RATE]
    chunks, _ = collect_chunks(head, get_speech_timestamps(head))
    speech = np.concatenate(chunks) if chunks else head
    return speech[: DETECTION_WINDOW_FRAMES * HOP_SAMPLES]


def detect_language(audio: Any) -> LanguageGuess:
    """The spoken language of 16 kHz mono ``audio`` according to multilingual base.

    faster-whisper's own ``detect_language`` pads every window to 30 s; the
    encoder (CTranslate2) also takes a shorter one, and 15 s of speech cost
    a quarter of the CPU time with the same answer on the benchmark's
    English and German speech, so the window is encoded at 15 s.
    """
    from faster_whisper.audio import pad_or_trim

    started = time.perf_counter()
    _, model = _multilingual()
    features = model.feature_extractor(_speech_head(audio))
    encoded = model.encode(pad_or_trim(features, DETECTION_WINDOW_FRAMES))
    token, probability = model.model.detect_language(encoded)[0][0]
    language = token[2:-2]  # "<|de|>" -> "de"
    return LanguageGuess(language, float(probability), time.perf_counter() - started)


def _decode(media: str | BinaryIO) -> Any:
    from faster_whisper import decode_audio

    return decode_audio(media, sampling_rate=SAMPLE_RATE)


def transcribe(
    media: str | BinaryIO,
    *,
    model: str | None = None,
    beam_size: int = DEFAULT_BEAM_SIZE,
    batch_size: int = DEFAULT_BATCH_SIZE,
    vad_filter: bool = False,
    progress: Callable[[str], None] | None = None,
) -> WhisperResult:
    """Detect the language, then transcribe into (text, start, end) triples."""
    say = progress or (lambda _message: None)
    audio = _decode(media)
    chosen = requested_model(model)
    device, compute_type = choose_device()
    guess: LanguageGuess | None = None
    if chosen is None:
        guess = detect_language(audio)
        say(
            f"whisper: detected language {guess.language} (p={guess.probability:.2f},"
            f" {guess.seconds:.2f} s)"
        )
        if guess.language == "en":
            name = default_model()
            _release_models()  # base: memory that English transcription never uses
        else:
            name = _multilingual()[0]
        language: str | None = guess.language
    else:
        name, language = chosen, None
    say(f"whisper: loading {name} on {device} ({compute_type})")
    whisper = _load(name)
    if not whisper.model.is_multilingual:
        if guess is None:
            guess = detect_language(audio)
            say(f"whisper: detected language {guess.language} (p={guess.probability:.2f})")
        if guess.language != "en":
            raise LanguageUnsupported(name, guess.language, guess.probability)
        language = "en"
    options: dict[str, Any] = {
        "beam_size": beam_size,
        "condition_on_previous_text": False,
        "language": language,
    }
    if batch_size > 0:
        from faster_whisper import BatchedInferencePipeline

        pipeline = BatchedInferencePipeline(model=whisper)
        pieces, info = pipeline.transcribe(audio, batch_size=batch_size, vad_filter=True, **options)
    else:
        pieces, info = whisper.transcribe(audio, vad_filter=vad_filter, **options)
    total = float(info.duration or 0.0)
    segments: list[tuple[str, float, float]] = []
    for piece in pieces:
        segments.append((piece.text, float(piece.start), float(piece.end)))
        if progress and total > 0:
            percent = min(100.0, 100 * piece.end / total)
            progress(f"whisper: {piece.end:7.1f}/{total:.1f} s ({percent:3.0f}%)")
    detected = str(info.language)
    probability = guess.probability if guess is not None else float(info.language_probability)
    say(f"whisper: done, {len(segments)} segments, language {detected}")
    return WhisperResult(detected, total, segments, name, device, probability)
