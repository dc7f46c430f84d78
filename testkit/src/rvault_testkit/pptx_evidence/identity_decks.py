"""Decks that say which delivery they are, for the deck-to-talk binding proof.

A conference deck's title slide names the talk (and often the speaker), its
footer the event and hashtag; those are the facts tracking-db's proof reads
from the extraction. ``delivery_deck`` writes exactly that: a title slide, a
footer on every slide, and one content slide.
"""

from __future__ import annotations

import io

from pptx import Presentation

from rvault_testkit.pptx_evidence.sample_decks import add_footer


def delivery_deck(title: str, subtitle: str, footer: str) -> bytes:
    """A two-slide deck: title slide (``title``/``subtitle``), one content slide."""
    prs = Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[0])
    first.shapes.title.text = title
    first.placeholders[1].text = subtitle
    second = prs.slides.add_slide(prs.slide_layouts[1])
    second.shapes.title.text = "Why it matters"
    second.placeholders[1].text = "Three reasons"
    for slide in (first, second):
        add_footer(slide, footer)
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()
