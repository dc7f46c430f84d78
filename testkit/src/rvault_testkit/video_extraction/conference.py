"""Conference recordings drawn independently of :mod:`synthetic` (a second witness).

The package's slide-region detector was tuned on ``synthetic``'s talks, so a
figure measured only there says little about talks somebody else produced:
an independently made side-by-side talk got the whole frame back. This
module shares no drawing code, no palette and no layout table with
``synthetic``. It renders what a conference upload looks like:

* slides rendered from text with Pillow's bundled FreeType font onto one
  template (white body, coloured title band, footer with a page number), so
  that the slide margins never change between slides, plus section slides,
  bar charts, code blocks and photo-like panels, and bullet builds;
* a filmed speaker: a textured figure (striped shirt, shaded head) that
  walks and gestures on a smooth random path, in front of a textured room,
  with per-frame sensor noise and exposure flicker over the whole camera
  picture (a camera never holds still the way a screen capture does);
* layouts ``side_by_side`` (full-height slides on the left 72 % of the
  width, the camera picture on the rest: no border around the slides but the
  frame's own and the camera's), ``side_by_side_branded`` (slides and camera
  side by side on a branded background with a logo), ``pip`` (full-frame
  slides, camera inset bottom right), ``stage`` (a wide shot of a
  projection screen, the speaker walking over the stage in front of its
  lower edge, everything filmed and noisy) and ``camera_only`` (no
  slides at all: the speaker in front of a wall with a static poster);
* MPEG-4 Part 2 through ``cv2.VideoWriter`` (``mp4v``), so compression noise
  is real.

Ground truth is the slide box (normalized, :attr:`ConferenceTalk.slide_box`,
``None`` for ``camera_only``) and the slide on screen at any time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

NormBox = tuple[float, float, float, float]
Pixels = tuple[int, int, int, int]

LAYOUT_SLIDES: dict[str, NormBox | None] = {
    "side_by_side": (0.0, 0.0, 0.72, 1.0),
    "side_by_side_branded": (0.02, 0.14, 0.74, 0.86),
    "pip": (0.0, 0.0, 1.0, 1.0),
    "stage": (0.2, 0.08, 0.7, 0.62),
    "camera_only": None,
}
LAYOUT_CAMERAS: dict[str, NormBox] = {
    "side_by_side": (0.72, 0.0, 1.0, 1.0),
    "side_by_side_branded": (0.76, 0.14, 0.98, 0.86),
    "pip": (0.72, 0.66, 0.97, 0.95),
    "stage": (0.0, 0.0, 1.0, 1.0),
    "camera_only": (0.0, 0.0, 1.0, 1.0),
}
VOCABULARY = (
    "latency throughput cache shard replica queue vector index schema rollout canary "
    "budget tracing sampling consensus leader quorum backlog retry timeout lease ledger "
    "gradient kernel tensor batch window stream merge partition snapshot compaction"
)
WORDS = tuple(VOCABULARY.split())
NOISE_FIELDS = 8
# The stage speaker's height as a share of the frame: head at about the screen's lower edge,
# hands raised over its lower part now and then.
STAGE_SPEAKER = 0.6
ACCENTS = [(196, 62, 48), (34, 110, 180), (46, 140, 90), (150, 70, 160), (210, 140, 30)]


@dataclass(frozen=True)
class DeckSlide:
    """One shown slide image; ``key`` names it in the ground truth (builds get one key each)."""

    key: str
    kind: str
    title: str
    lines: tuple[str, ...]
    accent: int


@dataclass(frozen=True)
class Shown:
    slide: DeckSlide
    seconds: float
    fade: float = 0.0


@dataclass
class ConferenceTalk:
    """A talk to render: layout, size, frame rate, the slides shown and the camera's noise."""

    layout: str = "side_by_side"
    width: int = 320
    height: int = 180
    fps: float = 10.0
    shown: list[Shown] = field(default_factory=list)
    sensor_noise: float = 5.0
    seed: int = 11

    @property
    def slide_box(self) -> NormBox | None:
        return LAYOUT_SLIDES[self.layout]

    def duration(self) -> float:
        return sum(item.seconds for item in self.shown)

    def truth(self) -> list[str]:
        """Slide keys in showing order, consecutive repeats collapsed."""
        keys: list[str] = []
        for item in self.shown:
            if not keys or keys[-1] != item.slide.key:
                keys.append(item.slide.key)
        return keys

    def slide_at(self, seconds: float) -> str:
        start = 0.0
        for item in self.shown:
            if seconds < start + item.seconds:
                return item.slide.key
            start += item.seconds
        return self.shown[-1].slide.key


def make_deck(count: int, seed: int = 3) -> list[DeckSlide]:
    """``count`` shown slide images: mostly template slides, some builds, sections, charts, code."""
    rng = np.random.default_rng(seed)
    slides: list[DeckSlide] = []
    number = 0
    while len(slides) < count:
        kind = str(rng.choice(["bullets", "bullets", "build", "section", "chart", "code", "photo"]))
        title = " ".join(str(word).capitalize() for word in rng.choice(WORDS, 2, replace=False))
        lines = tuple(
            " ".join(str(word) for word in rng.choice(WORDS, int(rng.integers(2, 5))))
            for _ in range(int(rng.integers(2, 5)))
        )
        accent = int(rng.integers(len(ACCENTS)))
        if kind == "build":
            for step in range(1, min(len(lines), count - len(slides)) + 1):
                slides.append(
                    DeckSlide(f"d{number}b{step}", "bullets", title, lines[:step], accent)
                )
        else:
            slides.append(DeckSlide(f"d{number}", kind, title, lines, accent))
        number += 1
    return slides[:count]


def schedule(
    slides: list[DeckSlide], seconds: float | tuple[float, float], seed: int = 5, fade: float = 0.0
) -> list[Shown]:
    """Each slide once, for ``seconds`` (or a uniform draw from a (low, high) range)."""
    rng = np.random.default_rng(seed)
    shown = []
    for slide in slides:
        length = seconds if isinstance(seconds, float) else float(rng.uniform(*seconds))
        shown.append(Shown(slide, length, fade if shown else 0.0))
    return shown


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, size))


def render_deck_slide(slide: DeckSlide, width: int, height: int) -> np.ndarray:
    """The slide as RGB pixels, drawn with Pillow from its text."""
    accent = ACCENTS[slide.accent]
    unit = height / 100.0
    if slide.kind == "section":
        image = Image.new("RGB", (width, height), accent)
        draw = ImageDraw.Draw(image)
        draw.text(
            (8 * unit, 38 * unit), slide.title, fill=(255, 255, 255), font=_font(round(12 * unit))
        )
        draw.line((8 * unit, 56 * unit, 60 * unit, 56 * unit), fill=(255, 255, 255), width=2)
        return np.asarray(image)
    image = Image.new("RGB", (width, height), (252, 252, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 17 * unit), fill=accent)
    draw.text((5 * unit, 4 * unit), slide.title, fill=(255, 255, 255), font=_font(round(9 * unit)))
    draw.line((5 * unit, 92 * unit, width - 5 * unit, 92 * unit), fill=(190, 190, 190), width=1)
    draw.text(
        (5 * unit, 93.5 * unit), "DevConf 2026", fill=(120, 120, 120), font=_font(round(4.5 * unit))
    )
    body = _font(round(6.5 * unit))
    if slide.kind in ("bullets", "photo"):
        for row, line in enumerate(slide.lines):
            top = (26 + 14 * row) * unit
            draw.ellipse((6 * unit, top + 2 * unit, 9 * unit, top + 5 * unit), fill=accent)
            draw.text((12 * unit, top), line, fill=(30, 30, 30), font=body)
    if slide.kind == "photo":
        _photo(draw, (width * 0.58, 24 * unit, width * 0.95, 86 * unit), slide.accent)
    elif slide.kind == "chart":
        _chart(draw, width, unit, accent, len(slide.title) + len(slide.lines))
    elif slide.kind == "code":
        draw.rectangle((5 * unit, 24 * unit, width - 5 * unit, 88 * unit), fill=(28, 32, 40))
        mono = _font(round(5.5 * unit))
        for row, line in enumerate(slide.lines):
            text = f"{row + 1:>2}  {line.replace(' ', '_')}()"
            draw.text((8 * unit, (28 + 12 * row) * unit), text, fill=(160, 220, 140), font=mono)
    return np.asarray(image)


def _photo(draw: ImageDraw.ImageDraw, box: tuple[float, ...], variant: int) -> None:
    """A photo-like panel: sky gradient, hills and a sun, varying with ``variant``."""
    x0, y0, x1, y1 = box
    rows = max(1, int(y1 - y0))
    for row in range(rows):
        shade = int(120 + 100 * row / rows)
        draw.line((x0, y0 + row, x1, y0 + row), fill=(shade // 2, shade - 20, shade))
    draw.polygon(
        [
            (x0, y1),
            (x0, y0 + rows * 0.6),
            ((x0 + x1) / 2, y0 + rows * (0.45 + 0.05 * variant)),
            (x1, y1),
        ],
        fill=(60, 110 + 10 * variant, 50),
    )
    radius = rows * 0.1
    centre = (x0 + (x1 - x0) * (0.25 + 0.1 * variant), y0 + rows * 0.25)
    draw.ellipse(
        (centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius),
        fill=(250, 220, 90),
    )


def _chart(
    draw: ImageDraw.ImageDraw, width: int, unit: float, accent: tuple[int, int, int], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    base = 86 * unit
    draw.line((10 * unit, base, width - 10 * unit, base), fill=(60, 60, 60), width=1)
    bars = 6
    span = (width - 24 * unit) / bars
    for index in range(bars):
        tall = float(rng.uniform(12, 55)) * unit
        left = 12 * unit + index * span
        draw.rectangle((left, base - tall, left + span * 0.6, base), fill=accent)


def _px(box: NormBox, width: int, height: int) -> Pixels:
    return (
        round(box[0] * width),
        round(box[1] * height),
        round(box[2] * width),
        round(box[3] * height),
    )


class _Room:
    """The filmed part: a textured wall and a speaker who never stands still."""

    def __init__(self, width: int, height: int, rng: np.random.Generator) -> None:
        self.width, self.height = width, height
        coarse = rng.normal(0.0, 1.0, (max(2, height // 12), max(2, width // 12)))
        texture = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
        ramp = np.linspace(0.0, 1.0, height)[:, None]
        wall = np.empty((height, width, 3), np.float32)
        wall[..., 0] = 70 + 40 * ramp + 10 * texture
        wall[..., 1] = 60 + 30 * ramp + 8 * texture
        wall[..., 2] = 55 + 25 * ramp + 8 * texture
        self.wall = wall
        self.phases = rng.uniform(0, 2 * math.pi, 6)
        self.rates = rng.uniform(0.15, 0.6, 6)
        self.stripes = int(rng.integers(3, 6))

    def _wave(self, index: int, seconds: float) -> float:
        return math.sin(self.rates[index] * 2 * math.pi * seconds + self.phases[index])

    def speaker(
        self,
        seconds: float,
        centre_range: tuple[float, float],
        scale: float,
        wall: np.ndarray | None = None,
    ) -> np.ndarray:
        """``wall`` (default the room's) with the speaker drawn at ``seconds`` (float BGR)."""
        frame = (self.wall if wall is None else wall).copy()
        low, high = centre_range
        walk = 0.5 + 0.35 * self._wave(0, seconds) + 0.15 * self._wave(1, seconds)
        centre = int(self.width * (low + (high - low) * walk))
        size = self.height * scale
        head = max(3, int(size * 0.11))
        neck_y = int(self.height - size * 0.62 + head * 0.3 * self._wave(2, seconds))
        torso = np.array(
            [
                [centre - size * 0.2, self.height],
                [centre - size * 0.15, neck_y + head],
                [centre + size * 0.15, neck_y + head],
                [centre + size * 0.2, self.height],
            ],
            np.int32,
        )
        shirt = np.zeros((self.height, self.width), np.uint8)
        cv2.fillConvexPoly(shirt, torso, 1)
        left, top = max(0, int(centre - size * 0.2)), max(0, neck_y + head)
        body = shirt[top:, left : int(centre + size * 0.2) + 1].astype(bool)
        diagonal = np.add.outer(np.arange(body.shape[0]) + top, np.arange(body.shape[1]) + left)
        striped = ((diagonal - centre) // max(2, head // self.stripes)) % 2 == 0
        view = frame[top:, left : left + body.shape[1]]
        view[body & striped] = (150, 60, 40)
        view[body & ~striped] = (200, 180, 170)
        for side, wave in ((-1, 3), (1, 4)):
            reach = side * size * (0.25 + 0.15 * self._wave(wave, seconds))
            lift = size * 0.2 * self._wave(wave + 1, seconds)
            hand = (int(centre + reach), int(neck_y + head * 2 + lift))
            cv2.line(
                frame,
                (centre + side * int(size * 0.13), neck_y + 2 * head),
                hand,
                (170, 70, 45),
                max(2, head // 2),
            )
            cv2.circle(frame, hand, max(1, head // 3), (120, 160, 215), -1)
        face = (centre + int(head * 0.3 * self._wave(5, seconds)), neck_y - head // 2)
        cv2.ellipse(frame, face, (int(head * 0.8), head), 0, 0, 360, (110, 150, 205), -1)
        cv2.ellipse(
            frame,
            (face[0], face[1] - head // 2),
            (int(head * 0.85), head // 2),
            0,
            180,
            360,
            (40, 45, 60),
            -1,
        )
        return frame


class _Compositor:
    def __init__(self, talk: ConferenceTalk) -> None:
        if talk.layout not in LAYOUT_SLIDES:
            raise ValueError(f"unknown layout {talk.layout}")
        self.talk = talk
        self.rng = np.random.default_rng(talk.seed)
        width, height = talk.width, talk.height
        self.camera = _px(LAYOUT_CAMERAS[talk.layout], width, height)
        box = talk.slide_box
        self.slide = _px(box, width, height) if box is not None else None
        cx0, cy0, cx1, cy1 = self.camera
        self.room = _Room(cx1 - cx0, cy1 - cy0, self.rng)
        if talk.layout == "camera_only":
            self._poster()
        self.backdrop = self._backdrop()
        # Sensor noise: a bank of fields, picked and rolled at random per frame (fresh
        # Gaussian noise for every frame was most of the rendering time).
        self.noise = [
            self.rng.standard_normal((cy1 - cy0, cx1 - cx0, 3), dtype=np.float32)
            * talk.sensor_noise
            for _ in range(NOISE_FIELDS)
        ]
        self.images: dict[str, np.ndarray] = {}

    def _poster(self) -> None:
        """A static sign on the wall: a bright rectangle with edges and text, never changing."""
        wall = np.clip(self.room.wall, 0, 255).astype(np.uint8)
        side = wall.shape[1] // 10
        cv2.rectangle(wall, (side, side), (side * 4, side * 3), (210, 220, 225), -1)
        cv2.putText(
            wall,
            "EXIT",
            (side + 3, side * 2 + 3),
            cv2.FONT_HERSHEY_SIMPLEX,
            side / 40,
            (30, 30, 160),
            1,
        )
        self.room.wall = wall.astype(np.float32)

    def _backdrop(self) -> np.ndarray:
        """The static branded background behind slides and camera (BGR float)."""
        width, height = self.talk.width, self.talk.height
        ramp = np.linspace(0.0, 1.0, width)[None, :, None]
        back = np.empty((height, width, 3), np.float32)
        back[:] = (60, 30, 20)
        back += ramp * np.array([50, 20, 10], np.float32)
        if self.talk.layout == "side_by_side_branded":
            label = np.zeros((height, width), np.uint8)
            cv2.putText(
                label,
                "DEVCONF",
                (int(width * 0.03), int(height * 0.96)),
                cv2.FONT_HERSHEY_DUPLEX,
                height / 400,
                255,
                1,
                cv2.LINE_AA,
            )
            back[label > 0] = (200, 200, 200)
        return back

    def _slide_image(self, slide: DeckSlide) -> np.ndarray:
        cached = self.images.get(slide.key)
        if cached is None:
            assert self.slide is not None
            x0, y0, x1, y1 = self.slide
            rgb = render_deck_slide(slide, x1 - x0, y1 - y0)
            cached = rgb[..., ::-1].astype(np.float32)
            self.images[slide.key] = cached
        return cached

    def _slides_at(self, seconds: float) -> np.ndarray | None:
        if self.slide is None:
            return None
        start = 0.0
        shown = self.talk.shown
        for index, item in enumerate(shown):
            if seconds < start + item.seconds or index == len(shown) - 1:
                image = self._slide_image(item.slide)
                into = seconds - start
                if index and item.fade > 0 and into < item.fade:
                    weight = into / item.fade
                    return weight * image + (1 - weight) * self._slide_image(shown[index - 1].slide)
                return image
            start += item.seconds
        return None

    def frame(self, number: int) -> np.ndarray:
        talk = self.talk
        seconds = number / talk.fps
        canvas = self.backdrop.copy()
        cx0, cy0, cx1, cy1 = self.camera
        filmed = talk.layout in ("stage", "camera_only")
        slides = self._slides_at(seconds)
        if filmed:
            room = self.room.wall.copy()
            if slides is not None and self.slide is not None:
                x0, y0, x1, y1 = self.slide
                room[y0:y1, x0:x1] = 0.85 * slides + 20  # a projection: dimmer, lifted blacks
            person = self.room.speaker(
                seconds, (0.1, 0.9), STAGE_SPEAKER if talk.layout == "stage" else 1.2, room
            )
        else:
            if slides is not None and self.slide is not None:
                x0, y0, x1, y1 = self.slide
                canvas[y0:y1, x0:x1] = slides
            person = self.room.speaker(seconds, (0.3, 0.7), 0.95)
        flicker = 2.5 * math.sin(seconds * 7.0)
        field = self.noise[int(self.rng.integers(len(self.noise)))]
        shift = int(self.rng.integers(field.shape[0]))
        canvas[cy0:cy1, cx0:cx1] = person + flicker + np.roll(field, shift, axis=0)
        return np.clip(canvas, 0, 255).astype(np.uint8)

    def frames(self) -> Iterator[np.ndarray]:
        for number in range(round(self.talk.duration() * self.talk.fps)):
            yield self.frame(number)


def write_conference_mp4(talk: ConferenceTalk, path: Path) -> Path:
    """Render ``talk`` with OpenCV's MPEG-4 Part 2 (``mp4v``) writer."""
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"mp4v"), talk.fps, (talk.width, talk.height)
    )
    if not writer.isOpened():
        raise RuntimeError("OpenCV cannot open an mp4v writer")
    try:
        for frame in _Compositor(talk).frames():
            writer.write(frame)
    finally:
        writer.release()
    return path


def render_frame(talk: ConferenceTalk, seconds: float) -> np.ndarray:
    """One frame at ``seconds`` (BGR), for looking at a layout without encoding a video."""
    return _Compositor(talk).frame(round(seconds * talk.fps))
