"""The sample vault's media, generated at demo time so the repository carries no binaries.

Everything here is deterministic and small, and each artifact exercises what
a real one would:

- the deck (python-pptx): title and bullet slides with speaker notes, a
  table, a picture whose words exist only as rendered pixels (so only OCR can
  read them), and slide timing (an automatic advance on a transition);
- the recording (OpenCV): the slides on the left of a 16:9 frame and a
  moving "speaker" block on the right, a static frame around both, the way a
  picture-in-picture conference recording looks; the slide sequence is known
  (``SLIDES``), so the extracted page count can be checked by eye;
- the speech (espeak-ng): a short spoken abstract of the second talk for the
  local Whisper transcription.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

SLIDES = [
    ("The Quiet Slide", "Letting evidence speak"),
    ("One idea per slide", "and nothing else"),
    ("Show the evidence", "let the numbers do the arguing"),
    ("Pause", "count to three"),
    ("Callbacks", "return to the opening question"),
]
TABLE = [("Rule", "Before", "After"), ("Words per slide", "62", "9"), ("Slides", "48", "21")]
PICTURE_TEXT = ("Less text", "More speaker")

# The recording's layout, as fractions of the frame: the slide area the
# speaker would confirm from the contact sheet, and the speaker's column.
FRAME = (1280, 720)
SLIDE_REGION = (0.03125, 0.125, 0.6875, 0.875)  # left, top, right, bottom
SPEAKER_COLUMN = (0.73, 0.2, 0.97, 0.8)

SPEECH = (
    "Arguments that land. Every argument in this talk has three parts: a claim, "
    "the evidence for it, and the reason the evidence matters to you. "
    "We will take three arguments apart, one at a time, and then put them back together. "
    "The rule of three is not magic. It is a promise you make to your audience "
    "and then keep. At the end I will come back to the first argument, "
    "because a callback tells the audience that the structure was planned."
)


def _text_picture(lines: tuple[str, ...], size: tuple[int, int] = (1200, 360)) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=72)
    for index, line in enumerate(lines):
        draw.text((60, 60 + 130 * index), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _advance_after(slide: object, milliseconds: int) -> None:
    """A fade transition that advances automatically: the deck's timing evidence."""
    from lxml import etree
    from pptx.oxml.ns import qn

    transition = etree.SubElement(slide._element, qn("p:transition"))  # type: ignore[attr-defined]
    transition.set("spd", "med")
    transition.set("advTm", str(milliseconds))
    etree.SubElement(transition, qn("p:fade"))
    timing = slide._element.find(qn("p:timing"))  # type: ignore[attr-defined]
    if timing is not None:  # the schema orders transition before timing
        timing.addprevious(transition)


def make_deck(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for number, (title, body) in enumerate(SLIDES, start=1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = f"Say it plainly: {title.lower()}."
        if number == 1:
            _advance_after(slide, 4000)
    tables = deck.slides.add_slide(deck.slide_layouts[5])
    tables.shapes.title.text = "What changed"
    grid = tables.shapes.add_table(
        len(TABLE), len(TABLE[0]), Inches(1), Inches(2), Inches(8), Inches(2)
    ).table
    for row, values in enumerate(TABLE):
        for column, value in enumerate(values):
            grid.cell(row, column).text = value
    picture = deck.slides.add_slide(deck.slide_layouts[6])
    picture.shapes.add_picture(
        io.BytesIO(_text_picture(PICTURE_TEXT)), Inches(1), Inches(1.5), Inches(8), Inches(2.4)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def make_video(path: Path, seconds_per_slide: int = 4, fps: int = 10) -> None:
    """Picture-in-picture: still slides on the left, a speaker moving on the right."""
    import cv2
    import numpy as np

    width, height = FRAME
    left, top, right, bottom = (
        round(SLIDE_REGION[0] * width),
        round(SLIDE_REGION[1] * height),
        round(SLIDE_REGION[2] * width),
        round(SLIDE_REGION[3] * height),
    )
    s_left, s_top, s_right, s_bottom = (
        int(SPEAKER_COLUMN[0] * width),
        int(SPEAKER_COLUMN[1] * height),
        int(SPEAKER_COLUMN[2] * width),
        int(SPEAKER_COLUMN[3] * height),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
    frame_index = 0
    for number, (title, body) in enumerate(SLIDES, start=1):
        slide = np.full((bottom - top, right - left, 3), 245, np.uint8)
        cv2.rectangle(slide, (0, 0), (right - left, 60), (90, 40, 20), -1)
        cv2.putText(slide, title, (40, 220), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 4)
        cv2.putText(slide, body, (40, 300), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (60, 60, 60), 2)
        cv2.putText(
            slide, f"{number}/{len(SLIDES)}", (right - left - 110, bottom - top - 30),
            cv2.FONT_HERSHEY_SIMPLEX, 0.9, (90, 90, 90), 2,
        )
        for _ in range(seconds_per_slide * fps):
            frame = np.full((height, width, 3), (40, 32, 28), np.uint8)  # the static stage frame
            cv2.putText(
                frame, "Example PyCon 2025", (40, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                (200, 200, 200), 2,
            )
            frame[top:bottom, left:right] = slide
            cv2.rectangle(frame, (s_left, s_top), (s_right, s_bottom), (70, 60, 55), -1)
            sway = int(40 * np.sin(frame_index / 6.0))
            center = ((s_left + s_right) // 2 + sway, (s_top + s_bottom) // 2)
            cv2.circle(frame, (center[0], center[1] - 90), 45, (150, 170, 200), -1)
            cv2.rectangle(
                frame, (center[0] - 60, center[1] - 40), (center[0] + 60, center[1] + 150),
                (120, 80, 60), -1,
            )
            writer.write(frame)
            frame_index += 1
    writer.release()


def make_speech(path: Path) -> None:
    """A 16 kHz mono WAV of ``SPEECH`` spoken by espeak-ng (installed by the bootstrap)."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        raise RuntimeError("espeak-ng is not installed; run `make bootstrap` as root")
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = path.with_suffix(".espeak.wav")
    subprocess.run([espeak, "-v", "en-us", "-s", "150", "-w", str(raw), SPEECH], check=True)
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raw.replace(path)
        return
    subprocess.run(
        [ffmpeg, "-loglevel", "error", "-y", "-i", str(raw), "-ar", "16000", "-ac", "1", str(path)],
        check=True,
    )
    raw.unlink()
