"""The search documents of one talk page: its analysis, transcript chunks and slide text.

Each result names where it leads: the talk page (a slide hit lands on its
thumbnail), and for a transcript hit the moment, the line range and the
time its first line starts by the timing receipt, linked to the recording
at that second when the talk has a public video, otherwise naming the
local recording. Every text passes the same :class:`.paths.Scrubber` as the
page, so the index holds no absolute path either.
"""

from __future__ import annotations

from collections.abc import Sequence

from rvault_analysis_writer.site.paths import Scrubber
from rvault_analysis_writer.site.search import Document, chunks, snippet
from rvault_analysis_writer.site.talk_page import TalkPage
from rvault_analysis_writer.site.timeline import public_link, where


def _analysis(page: TalkPage, name: str, scrub: Scrubber) -> Document:
    view = page.view
    findings = [
        f"{finding.name} ({finding.kind}): {finding.evidence}"
        for _, group in page.dimensions
        for finding in group
    ]
    prose = [view.rhetoric_notes, view.areas_for_improvement, view.adherence_assessment]
    text = scrub.text("\n".join([*prose, *findings]))
    return Document(
        f"{name}#analysis",
        view.title,
        text,
        {
            "page": name,
            "kind": "analysis",
            "label": f"{page.row.conference} {page.row.date}".strip(),
            "moment": "",
            "snippet": snippet(scrub.text(view.rhetoric_notes or view.areas_for_improvement)),
        },
    )


def _transcript(page: TalkPage, name: str, scrub: Scrubber) -> list[Document]:
    transcript = page.row.evidence.transcript
    out = []
    for first, last, word, text in chunks(transcript.lines):
        at = transcript.word_starts[word] if word < len(transcript.word_starts) else None
        label = f"line {first}" if first == last else f"lines {first}-{last}"
        if at is not None:
            label += f", at {where(at, page.video_id, page.local_recording)}"
        clean = scrub.text(text)
        stored = {
            "page": name,
            "kind": "transcript",
            "label": scrub.text(label),
            "moment": (public_link(page.video_id, at) or "") if at is not None else "",
            "snippet": snippet(clean),
        }
        out.append(Document(f"{name}#lines-{first}", page.view.title, clean, stored))
    return out


def _slides(page: TalkPage, name: str, texts: Sequence[str], scrub: Scrubber) -> list[Document]:
    out = []
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        ref = page.thumbnails[number - 1] if number <= len(page.thumbnails) else None
        label = f"page {number}" + (f", shown at {ref.time}" if ref and ref.time else "")
        clean = scrub.text(text)
        stored = {
            "page": f"{name}#slide-{number}",
            "kind": "slide",
            "label": label,
            "moment": "",
            "snippet": snippet(clean),
        }
        out.append(Document(f"{name}#slide-{number}", page.view.title, clean, stored))
    return out


def talk_documents(page: TalkPage, slide_texts: Sequence[str], scrub: Scrubber) -> list[Document]:
    name = str(page.row.page)
    return [
        _analysis(page, name, scrub),
        *_transcript(page, name, scrub),
        *_slides(page, name, slide_texts, scrub),
    ]
