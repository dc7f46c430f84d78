"""Local transcription with faster-whisper (CTranslate2), languages detected first.

Embedded models (:mod:`rvault_transcript.models`): the multilingual
faster-whisper base listens for the spoken language in every stretch of
speech (:mod:`rvault_transcript.speech_language`), so a recording that
changes language is reported with each language's share and transcribed
span by span, each in its own language, never decoded as one language.
English spans are transcribed with tiny.en (measured faster at equal
accuracy, see the benchmark), any other language with base in that
language. The reported language is the one with the largest share of the
speech, never a default.

``--model`` or ``RVAULT_WHISPER_MODEL`` select another model (a
faster-whisper size name or a CTranslate2 directory). A multilingual model
detects and transcribes every span itself; an English-only one is preceded
by detection with base and refuses speech with any non-English span
(``language_unsupported``) instead of returning English-sounding gibberish.
CUDA is used when CTranslate2 sees a device (float16), otherwise the CPU
(int8). Progress goes to stderr as segments arrive.
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
from rvault_transcript.speech_language import SAMPLE_RATE, Span, SpokenLanguages, spoken_languages

MODEL_ENV = "RVAULT_WHISPER_MODEL"
# Measured on the 2-core CI machine (benchmarks/run.py): batched decoding of
# VAD chunks, two at a time, with beam 5 gives the lowest word error rate of
# the configurations tried, stays under 500 MB peak RSS and runs well above
# realtime; sequential decoding with timestamps conditions on its own errors.
DEFAULT_BEAM_SIZE = 5
DEFAULT_BATCH_SIZE = 2
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
    """The chosen English-only model cannot transcribe a detected language."""

    def __init__(self, name: str, language: str, probability: float, detection: Detection) -> None:
        super().__init__(f"{name}: detected {language} ({probability:.2f})")
        self.name = name
        self.language = language
        self.probability = probability
        self.detection = detection


@dataclass(frozen=True)
class LanguageGuess:
    language: str
    probability: float
    seconds: float
    """Wall time of detection, model load included."""
    detection: Detection | None = None


@dataclass(frozen=True)
class WhisperResult:
    language: str
    duration_seconds: float
    segments: list[tuple[str, float, float]]
    model: str
    device: str
    language_probability: float | None = None
    languages: Detection | None = None

    @property
    def detection(self) -> Detection:
        """The languages of the speech with their shares (one language: all of it)."""
        return self.languages or Detection(AUDIO_DETECTOR, ((self.language, 1.0),))


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


def _listener(chosen: str | None) -> Any:
    """The model that detects languages: a chosen multilingual model, else embedded base."""
    if chosen is not None:
        whisper = _load(chosen)
        if whisper.model.is_multilingual:
            return whisper
    return _multilingual()[1]


def detect_language(audio: Any) -> LanguageGuess:
    """The spoken language of 16 kHz mono ``audio`` (largest share) according to base."""
    started = time.perf_counter()
    spoken = spoken_languages(audio, lambda: _multilingual()[1])
    primary = spoken.detection.primary
    return LanguageGuess(
        primary, spoken.probability, time.perf_counter() - started, spoken.detection
    )


def _decode(media: str | BinaryIO) -> Any:
    from faster_whisper import decode_audio

    return decode_audio(media, sampling_rate=SAMPLE_RATE)


def _span_plan(spoken: SpokenLanguages, chosen: str | None) -> list[tuple[Span, str]]:
    """Which model transcribes each span; an English-only choice refuses other languages."""
    if chosen is not None:
        if not _load(chosen).model.is_multilingual:
            foreign = [code for code, _ in spoken.detection.shares if code != "en"]
            if foreign:
                raise LanguageUnsupported(chosen, foreign[0], spoken.probability, spoken.detection)
        return [(span, chosen) for span in spoken.spans]
    base = _multilingual()[0]
    return [(span, default_model() if span.language == "en" else base) for span in spoken.spans]


def _decode_span(
    whisper: Any,
    audio: Any,
    span: Span,
    options: dict[str, Any],
    batch_size: int,
    vad: bool,
    say: Callable[[str], None],
) -> list[tuple[str, float, float]]:
    """One span in its language; times are shifted back onto the whole recording."""
    piece = audio[span.start : span.end]
    settings = options | {"language": span.language}
    if batch_size > 0:
        from faster_whisper import BatchedInferencePipeline

        pipeline = BatchedInferencePipeline(model=whisper)
        pieces, _ = pipeline.transcribe(piece, batch_size=batch_size, vad_filter=True, **settings)
    else:
        pieces, _ = whisper.transcribe(piece, vad_filter=vad, **settings)
    offset, total = span.start_seconds, len(audio) / SAMPLE_RATE
    segments = []
    for p in pieces:
        segments.append((p.text, float(p.start) + offset, float(p.end) + offset))
        end = segments[-1][2]
        say(f"whisper: {end:7.1f}/{total:.1f} s ({span.language}, {100 * end / total:3.0f}%)")
    return segments


def _transcribe_spans(
    audio: Any,
    plan: list[tuple[Span, str]],
    options: dict[str, Any],
    batch_size: int,
    vad_filter: bool,
    say: Callable[[str], None],
) -> list[tuple[str, float, float]]:
    """Every span with its model, one model at a time (the one loaded for detection first)."""
    names = sorted({name for _, name in plan}, key=lambda name: name == default_model())
    device, compute_type = choose_device()
    segments: list[tuple[str, float, float]] = []
    for number, name in enumerate(names):
        if number:
            _release_models()  # the previous model's memory goes back first
        say(f"whisper: loading {name} on {device} ({compute_type})")
        whisper = _load(name)
        for span, span_model in plan:
            if span_model != name:
                continue
            segments.extend(
                _decode_span(whisper, audio, span, options, batch_size, vad_filter, say)
            )
    return sorted(segments, key=lambda segment: segment[1])


def transcribe(
    media: str | BinaryIO,
    *,
    model: str | None = None,
    beam_size: int = DEFAULT_BEAM_SIZE,
    batch_size: int = DEFAULT_BATCH_SIZE,
    vad_filter: bool = False,
    progress: Callable[[str], None] | None = None,
) -> WhisperResult:
    """Detect the languages window by window, then transcribe each language span in its own."""
    say = progress or (lambda _message: None)
    audio = _decode(media)
    chosen = requested_model(model)
    started = time.perf_counter()
    spoken = spoken_languages(audio, lambda: _listener(chosen))
    detection = spoken.detection
    say(
        f"whisper: detected language {detection.primary} (p={spoken.probability:.2f},"
        f" {time.perf_counter() - started:.2f} s; {detection.summary()} over {spoken.windows}"
        f" speech windows, {spoken.classified} classified)"
    )
    if detection.mixed:
        say(f"whisper: mixed-language audio, {len(spoken.spans)} spans transcribed separately")
    plan = _span_plan(spoken, chosen)
    if chosen is None and all(name == default_model() for _, name in plan):
        _release_models()  # base: memory that English transcription never uses
    options = {"beam_size": beam_size, "condition_on_previous_text": False}
    segments = _transcribe_spans(audio, plan, options, batch_size, vad_filter, say)
    names = ", ".join(dict.fromkeys(name for _, name in plan))
    say(f"whisper: done, {len(segments)} segments, language {detection.primary}")
    return WhisperResult(
        detection.primary,
        len(audio) / SAMPLE_RATE,
        segments,
        names,
        choose_device()[0],
        spoken.probability,
        detection,
    )
