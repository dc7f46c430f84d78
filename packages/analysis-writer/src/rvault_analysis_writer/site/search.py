"""Vault-wide search that works when ``index.html`` is opened from disk.

Why this shape: Chromium refuses ``fetch()`` and XHR on ``file://``, so a
search that downloads its index (Pagefind's default loader, lunr or
MiniSearch loading a ``.json``) only works behind a web server. A script
file is loaded by a plain ``<script src>``, which ``file://`` allows. So the
index is built here, at site build time, in the serialization format of
MiniSearch 7 (``MiniSearch.loadJS``), and written as ``search-index.js``,
which assigns one global; ``search.js`` loads it into the vendored
MiniSearch (``vendor/minisearch.js``, MIT) and answers queries in the page.
No server, no network, and no build step in a JavaScript toolchain.

The index must tokenize exactly as MiniSearch tokenizes a query, or a
query term would never meet its indexed term: MiniSearch's default splits
on ``/[\\n\\r\\p{Z}\\p{P}]+/u`` and lowercases (``toLowerCase``);
:func:`tokenize` is the same rule with :mod:`unicodedata` categories, and
the field lengths count distinct raw tokens as MiniSearch's ``add`` does.

Documents: one per analysed talk (title, rhetoric notes, areas for
improvement, adherence, the detected patterns and their evidence), one per
passage of :data:`CHUNK_WORDS` transcript words (with its line range and the
time its first word was said, linked to the recording at that second when
the talk has a public video) and one per slide page with a text layer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

FIELDS = ("title", "text")
STORED = ("page", "title", "kind", "label", "moment", "snippet")
CHUNK_WORDS = 60
SNIPPET_CHARS = 240
SERIALIZATION_VERSION = 2
GLOBAL = "RVAULT_SEARCH_INDEX"


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str
    stored: dict[str, str] = field(default_factory=dict)


def _separators(text: str) -> str:
    return "".join(
        sorted(c for c in set(text) if c in "\n\r" or unicodedata.category(c)[0] in "ZP")
    )


def tokenize(text: str) -> list[str]:
    """MiniSearch's default ``text.split(/[\\n\\r\\p{Z}\\p{P}]+/u)`` (empty edges kept)."""
    separators = _separators(text)
    if not separators:
        return [text]
    return re.split("[" + re.escape(separators) + "]+", text)


def snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "\u2026"


def serialize(documents: Sequence[Document]) -> dict[str, Any]:
    """The object ``MiniSearch.toJSON()`` would give after ``addAll(documents)``."""
    index: dict[str, dict[int, dict[int, int]]] = {}
    lengths: dict[str, list[int]] = {}
    totals = [0] * len(FIELDS)
    for short, document in enumerate(documents):
        row = []
        for field_id, name in enumerate(FIELDS):
            tokens = tokenize(getattr(document, name))
            row.append(len(set(tokens)))
            totals[field_id] += row[-1]
            for token in tokens:
                term = token.lower()
                if term:
                    postings = index.setdefault(term, {}).setdefault(field_id, {})
                    postings[short] = postings.get(short, 0) + 1
        lengths[str(short)] = row
    count = len(documents)
    return {
        "averageFieldLength": [total / count if count else 0 for total in totals],
        "dirtCount": 0,
        "documentCount": count,
        "documentIds": {str(short): d.id for short, d in enumerate(documents)},
        "fieldIds": {name: field_id for field_id, name in enumerate(FIELDS)},
        "fieldLength": lengths,
        "index": [
            [term, {str(f): {str(d): n for d, n in docs.items()} for f, docs in fields.items()}]
            for term, fields in sorted(index.items())
        ],
        "nextId": count,
        "serializationVersion": SERIALIZATION_VERSION,
        "storedFields": {
            str(short): {"title": d.title, **d.stored} for short, d in enumerate(documents)
        },
    }


def index_script(documents: Sequence[Document]) -> bytes:
    """``search-index.js``: one assignment of the serialized index (ASCII-only JSON)."""
    body = json.dumps(serialize(documents), ensure_ascii=True, separators=(",", ":"))
    return f"window.{GLOBAL} = {body};\n".encode("ascii")


def chunks(lines: Sequence[str], size: int = CHUNK_WORDS) -> Iterable[tuple[int, int, int, str]]:
    """``(first line, last line, first word, text)`` of every ``size`` words (1-based lines,
    0-based word index), so a transcript of short cues and one of long Whisper lines both
    give passages of a readable length, each placed at its first word."""
    words: list[tuple[int, str]] = [
        (number, word) for number, line in enumerate(lines, start=1) for word in line.split()
    ]
    for start in range(0, len(words), size):
        part = words[start : start + size]
        yield part[0][0], part[-1][0], start, " ".join(word for _, word in part)
