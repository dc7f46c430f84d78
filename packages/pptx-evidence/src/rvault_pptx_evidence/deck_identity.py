"""The identity facts a deck carries about which delivery it is, read from its extraction.

A talk record says which deck it uses; nothing so far asked the deck. The
facts here are the ones a person would look at: the text of the title slide,
the footers (where events put their name and hashtag), the hashtags, and the
deck's own file name and folders (``Conference/2024/Talk.pptx``). They come
from a current pptx-extraction document, so the binding proof in tracking-db
never opens a presentation itself. Pure dictionary reading: no python-pptx.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

_HASHTAG = re.compile(r"#(\w+)", re.UNICODE)
TITLE_SLIDES = 1  # the first slide is the title slide


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _slide_text(slide: Mapping[str, Any]) -> str:
    parts = [_text(slide.get("text_content_preview")), _text(slide.get("ocr_text"))]
    return "\n".join(p for p in parts if p)


def deck_identity_facts(document: Mapping[str, Any]) -> dict[str, Any]:
    """``{pptx_path, file_stem, folders, title_text, footers, hashtags}`` of one extraction.

    ``title_text``: the first slide's extracted text (and OCR text, when the
    title is an image); ``footers``: each distinct footer in slide order;
    ``hashtags``: every ``#tag`` on any slide, lower-cased, sorted.
    """
    path = PurePosixPath(str(document.get("pptx_path") or ""))
    slides = [s for s in document.get("per_slide_visual") or [] if isinstance(s, Mapping)]
    title = "\n".join(_slide_text(s) for s in slides[:TITLE_SLIDES])
    footers: list[str] = []
    tags: set[str] = set()
    for slide in slides:
        footer = _text(slide.get("footer_text"))
        if footer and footer not in footers:
            footers.append(footer)
        for text in (_slide_text(slide), footer):
            tags.update(t.lower() for t in _HASHTAG.findall(text))
    return {
        "file_stem": path.stem,
        "folders": list(path.parent.parts) if str(path.parent) != "." else [],
        "footers": footers,
        "hashtags": sorted(tags),
        "pptx_path": str(path),
        "title_text": title,
    }
