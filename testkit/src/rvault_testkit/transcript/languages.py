"""Caption files and espeak-ng speech in English, German and Spanish (and Russian text).

The language checks need text and audio whose language is known by
construction: ten ordinary talk sentences per language, cycled into caption
lines (varied enough for quality policy v1's repetition rules), WebVTT with
an optional ``Language:`` header, and WAV files in which espeak-ng voices
speak one part per language with a pause between them (standard library
``wave`` only; espeak-ng is a Debian package that bootstrap installs).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Sequence
from pathlib import Path

SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "Good morning and thank you all for coming to this session today.",
        "I want to talk about how a speaker prepares the opening of a talk.",
        "The first minute decides whether the audience keeps listening or not.",
        "Many speakers start with an apology, and that wastes their best moment.",
        "A short story from your own work is a much stronger way to begin.",
        "After the story, tell people what they will be able to do afterwards.",
        "The middle of the talk should follow one clear line of argument.",
        "Every slide needs a reason to exist beyond being a page of notes.",
        "When you close, return to the story from the beginning and finish it.",
        "Questions from the audience are a gift, so leave time for them.",
    ),
    "es": (
        "Buenos días y muchas gracias a todos por venir a esta sesión.",
        "Hoy quiero hablar de cómo un orador prepara el comienzo de una charla.",
        "El primer minuto decide si el público sigue escuchando o no.",
        "Muchos oradores empiezan pidiendo disculpas y pierden su mejor momento.",
        "Una historia breve de tu propio trabajo es una forma mucho mejor de empezar.",
        "Después de la historia, explica qué podrá hacer la gente al terminar.",
        "La parte central de la charla debe seguir una sola línea de argumentos.",
        "Cada diapositiva necesita una razón para existir más allá de las notas.",
        "Al cerrar, vuelve a la historia del principio y termínala.",
        "Las preguntas del público son un regalo, así que deja tiempo para ellas.",
    ),
    "de": (
        "Guten Morgen und vielen Dank, dass Sie heute alle gekommen sind.",
        "Ich möchte darüber sprechen, wie man den Anfang eines Vortrags vorbereitet.",
        "Die erste Minute entscheidet, ob das Publikum weiter zuhört oder nicht.",
        "Viele Redner beginnen mit einer Entschuldigung und verschenken ihren besten Moment.",
        "Eine kurze Geschichte aus der eigenen Arbeit ist ein viel stärkerer Anfang.",
        "Nach der Geschichte sagen Sie den Leuten, was sie danach können werden.",
        "Der Hauptteil des Vortrags sollte einer klaren Argumentation folgen.",
        "Jede Folie braucht einen Grund, der über eine Seite Notizen hinausgeht.",
        "Zum Schluss kehren Sie zur Geschichte vom Anfang zurück und beenden sie.",
        "Fragen aus dem Publikum sind ein Geschenk, also lassen Sie Zeit dafür.",
    ),
    # Cyrillic script: lingua loads another script's models for these lines.
    "ru": (
        "Доброе утро и спасибо всем, что пришли сегодня на эту сессию.",
        "Я хочу рассказать, как докладчик готовит начало своего выступления.",
        "Первая минута решает, будет ли публика слушать дальше или нет.",
        "Многие докладчики начинают с извинений и теряют свой лучший момент.",
        "Короткая история из вашей собственной работы гораздо сильнее как начало.",
        "После истории скажите людям, что они смогут сделать после доклада.",
        "Середина доклада должна следовать одной ясной линии рассуждений.",
        "Каждому слайду нужна причина существовать, кроме страницы заметок.",
        "В конце вернитесь к истории из начала и закончите её.",
        "Вопросы из зала это подарок, поэтому оставьте на них время.",
    ),
}


def caption_lines(language: str, count: int, start: int = 0) -> list[str]:
    """``count`` caption lines in ``language``, cycling its sentences from ``start``."""
    sentences = SENTENCES[language]
    return [sentences[(start + i) % len(sentences)] for i in range(count)]


def _stamp(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, minutes = millis // 3_600_000, millis // 60_000 % 60
    return f"{hours:02d}:{minutes:02d}:{millis // 1000 % 60:02d}.{millis % 1000:03d}"


def webvtt(
    lines: Sequence[str], *, header_language: str | None = None, cue_seconds: float = 4.0
) -> str:
    """A WebVTT file with one cue per line, ``Language:`` in its header when given."""
    header = "WEBVTT\nKind: captions" + (
        f"\nLanguage: {header_language}" if header_language else ""
    )
    cues = [
        f"{_stamp(i * cue_seconds)} --> {_stamp((i + 1) * cue_seconds - 0.01)}\n{line}"
        for i, line in enumerate(lines)
    ]
    return "\n\n".join([header, *cues]) + "\n"


ESPEAK_VOICES = {"en": "en", "de": "de", "es": "es"}


def spoken_wav(out: Path, parts: Sequence[tuple[str, str]], *, gap_seconds: float = 1.0) -> Path:
    """One WAV in which espeak-ng speaks each ``(language, text)`` part, a pause between parts."""
    espeak = shutil.which("espeak-ng")
    assert espeak, "espeak-ng is required (tools/bootstrap.sh installs it)"
    frames: list[bytes] = []
    params = None
    with tempfile.TemporaryDirectory(prefix="rvault-speech-") as tmp:
        for index, (language, text) in enumerate(parts):
            part = Path(tmp) / f"{index}.wav"
            voice = ESPEAK_VOICES[language]
            subprocess.run(
                [espeak, "-v", voice, "-s", "150", "-w", str(part), text],
                check=True,
                capture_output=True,
            )
            with wave.open(str(part), "rb") as reader:
                params = reader.getparams()
                if frames:
                    frames.append(
                        b"\0" * (round(gap_seconds * params.framerate) * params.sampwidth)
                    )
                frames.append(reader.readframes(reader.getnframes()))
    assert params is not None, "no parts"
    with wave.open(str(out), "wb") as writer:
        writer.setparams(params)
        writer.writeframes(b"".join(frames))
    return out
