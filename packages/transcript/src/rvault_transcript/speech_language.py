"""The languages spoken in a recording, window by window.

Detecting once from the first speech called a talk that is English and then
German ``en (p=1.00)``, and its German half came out as invented English.
Here voice activity detection cuts the speech at pauses into windows of at
most 15 s; the multilingual model's encoder classifies each window (its
language token); windows too short or too uncertain to say take their
neighbour's language, and a single window that disagrees with the windows
on both sides of it, which agree, is taken as misheard (base hears Latin or
Thai in single windows of espeak-ng German with p 0.7-0.9; the benchmark's
German WER rose from 24 % to 40 % while such windows were transcribed as
their own spans). Consecutive windows of one language form a
:class:`Span`, transcribed on its own in that language
(:mod:`rvault_transcript.whisper`), and each language's share of the speech
seconds is reported as a :class:`~rvault_transcript.language.Detection`.

A long recording is not classified window by window: one window per
``SAMPLE_EVERY_SECONDS`` of speech is, and where two sampled windows differ
every window between them is, so a language change is located to its
window while a one-language talk costs one encoder pass per half minute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from rvault_transcript.language import AUDIO_DETECTOR, Detection, shares_from

SAMPLE_RATE = 16_000
FRAMES_PER_SECOND = 100
MAX_WINDOW_SECONDS = 15
# Every window is padded to 15 s of frames: what 30 s gives at a quarter of
# the cost, and a short window encoded at its own length is overconfident
# (a 4 s German window: Latin p 0.79 at 4 s, 0.29 padded to 15 s).
DETECTION_FRAMES = MAX_WINDOW_SECONDS * FRAMES_PER_SECOND
PAUSE_MS = 500
MIN_WINDOW_SECONDS = 1.0
MIN_PROBABILITY = 0.5
SAMPLE_EVERY_SECONDS = 30.0


@dataclass(frozen=True)
class Window:
    """A stretch of speech between pauses, in samples."""

    start: int
    end: int

    @property
    def seconds(self) -> float:
        return (self.end - self.start) / SAMPLE_RATE


@dataclass(frozen=True)
class Span:
    """Consecutive audio in one language, in samples, pauses included."""

    language: str
    start: int
    end: int

    @property
    def start_seconds(self) -> float:
        return self.start / SAMPLE_RATE


@dataclass(frozen=True)
class SpokenLanguages:
    detection: Detection
    spans: tuple[Span, ...]
    probability: float
    """The primary language's mean probability over the windows classified as it."""
    windows: int
    classified: int


def speech_windows(audio: Any) -> list[Window]:
    """Speech cut at pauses of half a second, at most 15 s each (the whole head if none)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=PAUSE_MS, max_speech_duration_s=MAX_WINDOW_SECONDS)
    windows = [Window(s["start"], s["end"]) for s in get_speech_timestamps(audio, options)]
    return windows or [Window(0, min(len(audio), MAX_WINDOW_SECONDS * SAMPLE_RATE))]


def classify(model: Any, audio: Any, window: Window) -> tuple[str, float]:
    """The window's most probable language token and its probability."""
    from faster_whisper.audio import pad_or_trim

    features = model.feature_extractor(audio[window.start : window.end])
    encoded = model.encode(pad_or_trim(features, DETECTION_FRAMES))
    token, probability = model.model.detect_language(encoded)[0][0]
    return token[2:-2], float(probability)  # "<|de|>" -> "de"


def _sampled(windows: Sequence[Window]) -> list[int]:
    """First, last, and one window per SAMPLE_EVERY_SECONDS of speech between them."""
    chosen, since = [], SAMPLE_EVERY_SECONDS
    for index, window in enumerate(windows):
        if window.seconds < MIN_WINDOW_SECONDS:
            continue
        if since >= SAMPLE_EVERY_SECONDS or index == len(windows) - 1:
            chosen.append(index)
            since = 0.0
        since += window.seconds
    return chosen


def window_languages(
    model: Any, audio: Any, windows: Sequence[Window]
) -> dict[int, tuple[str, float]]:
    """Classify the sampled windows, then every window between two that disagree.

    When every window is shorter than a second the longest is classified
    anyway: a short recording still gets a language, never a default.
    """
    chosen = _sampled(windows) or [max(range(len(windows)), key=lambda i: windows[i].seconds)]
    found = {i: classify(model, audio, windows[i]) for i in chosen}
    for before, after in pairwise(sorted(found)):
        if found[before][0] != found[after][0]:
            for index in range(before + 1, after):
                if windows[index].seconds >= MIN_WINDOW_SECONDS:
                    found[index] = classify(model, audio, windows[index])
    return found


def _without_blips(sure: dict[int, str]) -> dict[int, str]:
    """A sure window between two sure windows that agree with each other but not with it."""
    order = sorted(sure)
    fixed = dict(sure)
    for before, index, after in zip(order, order[1:], order[2:], strict=False):
        if sure[before] == sure[after] != sure[index]:
            fixed[index] = sure[before]
    return fixed


def assign(count: int, found: dict[int, tuple[str, float]]) -> list[str]:
    """Each window's language: its own when sure, else the previous window's (the next at first)."""
    sure = _without_blips({i: code for i, (code, p) in found.items() if p >= MIN_PROBABILITY})
    if not sure:  # nothing certain: the most probable answer is still better than none
        best = max(found.values(), key=lambda item: item[1])[0]
        return [best] * count
    first = sure[min(sure)]
    languages, current = [], first
    for index in range(count):
        current = sure.get(index, current)
        languages.append(current)
    return languages


def spans_of(windows: Sequence[Window], languages: Sequence[str], total: int) -> list[Span]:
    """Runs of one language, split in the middle of the pause between them, covering the audio."""
    spans: list[Span] = []
    for index, (window, language) in enumerate(zip(windows, languages, strict=True)):
        if spans and spans[-1].language == language:
            continue
        start = 0 if index == 0 else (windows[index - 1].end + window.start) // 2
        if spans:
            spans[-1] = Span(spans[-1].language, spans[-1].start, start)
        spans.append(Span(language, start, total))
    return spans


def spoken_languages(audio: Any, listener: Callable[[], Any]) -> SpokenLanguages:
    """The languages of 16 kHz mono ``audio``: shares of speech seconds and spans to transcribe.

    ``listener`` loads the multilingual model only after voice activity
    detection has run over the whole recording, so the two never hold their
    memory at once.
    """
    windows = speech_windows(audio)
    model = listener()
    found = window_languages(model, audio, windows)
    languages = assign(len(windows), found)
    detection = shares_from(
        ((language, w.seconds) for language, w in zip(languages, windows, strict=True)),
        AUDIO_DETECTOR,
    ) or Detection(AUDIO_DETECTOR, ((languages[0], 1.0),))  # no speech at all
    primary = [p for code, p in found.values() if code == detection.primary]
    probability = sum(primary) / len(primary) if primary else 0.0
    spans = spans_of(windows, languages, len(audio))
    return SpokenLanguages(detection, tuple(spans), probability, len(windows), len(found))
