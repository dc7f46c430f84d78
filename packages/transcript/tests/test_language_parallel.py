"""lingua on every core computes what it computed one window at a time.

The caption-language check preloads the trigram models of every Latin-script
language with lingua's parallel preload (for Latin text whose rules load them
all) and classifies the windows with
``compute_language_confidence_values_in_parallel`` (issue 32: most of a VTT
import's time is lingua's). These tests hold it to the serial computation:
every window gets the ranking lingua gives it alone (same languages, same
confidences; lingua sums in hash-map order, so the last bits may differ from
one call to the next either way), on English, mixed, Latin plus Cyrillic and
real Spanish subtitles; the preload is chosen only for text whose rules load
every Latin model; a forked child of a process whose thread pool has started
(its threads are not forked: a parallel call there never returns) classifies
serially; and the character counts the windows are cut by are the
per-character counts they replaced.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from rvault_testkit.transcript.languages import caption_lines
from rvault_transcript import text_language
from rvault_transcript.text_language import (
    MIN_CONFIDENCE,
    detect_text_languages,
    loads_every_latin_model,
    text_windows,
    visible_chars,
)
from rvault_transcript.vtt import vtt_to_segments

ROOT = Path(__file__).resolve().parents[3]
NETFLIX = ROOT / "tools" / "fixtures" / "speaker-run" / "netflix_chicas_del_cable.vtt"


def _netflix_lines() -> list[str]:
    return [s.text for s in vtt_to_segments(NETFLIX.read_text(encoding="utf-8"))]


TEXTS = {
    "english": lambda: caption_lines("en", 40),
    "english then spanish": lambda: caption_lines("en", 30) + caption_lines("es", 12),
    "german then russian": lambda: caption_lines("de", 20) + caption_lines("ru", 20),
    "netflix spanish subtitles": _netflix_lines,
}


def _ranking(values: list) -> dict[str, float]:
    return {value.language.name: value.value for value in values}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_window_ranks_as_lingua_ranks_it_alone(name: str) -> None:
    windows = text_windows(TEXTS[name]())
    parallel = text_language._rankings(windows)
    detector = text_language._detector()
    serial = [detector.compute_language_confidence_values(window) for window in windows]
    assert len(parallel) == len(serial) == len(windows) > 1
    for together, alone in zip(parallel, serial, strict=True):
        assert (together[0].language, together[0].value >= MIN_CONFIDENCE) == (
            alone[0].language,
            alone[0].value >= MIN_CONFIDENCE,
        )
        assert _ranking(together) == pytest.approx(_ranking(alone), abs=1e-9)


# Opening sentences of the same talk: lingua's rules load every Latin-script
# model for the first two, a handful for the last two (most words carry a
# letter only a few languages use), and the Cyrillic models for Russian.
FRENCH = "Bonjour et merci à tous d'être venus à cette session aujourd'hui, je veux parler."
CZECH = "Dobré ráno a děkuji vám všem, že jste dnes přišli na tuto přednášku o řečnících."
VIETNAMESE = "Chào buổi sáng và cảm ơn tất cả các bạn đã đến với buổi hôm nay."


def test_latin_models_are_preloaded_only_where_lingua_loads_them_all() -> None:
    def preloads(lines: list[str]) -> bool:
        return loads_every_latin_model(text_windows(lines))

    assert preloads(caption_lines("en", 40))
    assert preloads(caption_lines("es", 20) + caption_lines("de", 20))
    assert preloads([FRENCH] * 12)
    assert preloads(_netflix_lines())
    assert not preloads([CZECH] * 12)
    assert not preloads([VIETNAMESE] * 12)
    assert not preloads(caption_lines("ru", 40))
    assert not preloads(caption_lines("en", 20) + caption_lines("ru", 20))
    # Greek or Japanese is named by lingua's alphabet rules: no model at all.
    assert not preloads(["Καλημέρα σε όλους και ευχαριστώ που ήρθατε σήμερα εδώ."] * 8)
    assert not preloads(["皆さんおはようございます、ありがとうございます。"] * 8)
    assert not preloads(["1, 2, 3 -- 4 ... 5"] * 40)


def test_a_forked_child_of_a_started_pool_classifies_serially() -> None:
    lines = caption_lines("de", 20) + caption_lines("ru", 20)
    expected = detect_text_languages(lines)  # starts lingua's thread pool in this process
    assert expected is not None and {code for code, _ in expected.shares} == {"de", "ru"}
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            found = detect_text_languages(caption_lines("ru", 10) + lines)
            os.write(write, json.dumps(found.to_dict() if found else None).encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        done = _wait(child, seconds=60)
        answer = os.read(read, 1 << 16)
    finally:
        os.close(read)
    assert done, "the forked child never returned from lingua"
    shares = {entry["language"] for entry in json.loads(answer)["languages"]}
    assert shares == {"de", "ru"}


def _wait(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG)[0]:
            return True
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return False


def test_visible_characters_are_the_ones_isspace_does_not_name() -> None:
    # Every code point of the Basic Multilingual Plane but the surrogates: the
    # whitespace of every script (U+00A0, U+1680, U+2000-U+200A, U+3000, the
    # ASCII separators U+001C-U+001F) and the zero-width ones that are not.
    text = "".join(chr(i) for i in range(0x10000) if not 0xD800 <= i < 0xE000)
    assert visible_chars(text) == sum(1 for ch in text if not ch.isspace())
    assert visible_chars(" a\u00a0b\u200bc\u3000\x1c") == 4
