"""Strict decoding of the database, fast when it is stored as this owner writes it.

Every toolkit writer stores the database in the artifact encoding of
``rvault_contracts.canonical`` (sorted keys, two-space indent, UTF-8, final
LF). For such bytes a much cheaper proof gives exactly the value the strict
decoder would: orjson parses the bytes, and the bytes must then be *equal* to
orjson's artifact encoding of what it parsed. Equality rules out, without
looking at a single token:

- duplicate keys (an encoded dict cannot repeat one);
- numbers that would change when written back (each literal is the shortest
  round-trip form of the double it denotes; integers beyond 64 bits come back
  from orjson as floats and so cannot match);
- ``\\u`` surrogate escapes (orjson refuses lone ones and writes pairs as raw
  UTF-8, so an escaped pair cannot match), invalid UTF-8, a BOM, NaN;
- nesting deeper than the strict limit, given one substring check: in the
  indented form a container at depth ``d`` puts its members at indent ``2d``
  and an empty one sits at ``2(d - 1)``, so with no line indented by
  ``2 * MAX_DEPTH`` spaces no container is deeper than ``MAX_DEPTH``
  (newlines only occur between tokens; a JSON string cannot hold one).

Anything else (a hand-edited file, a float orjson spells differently, an
invalid document) falls back to :func:`rvault_contracts.strict_json.loads_strict`,
which is the definition and produces the exact error code and path. On the
10,000-talk benchmark database this is 0.25 s of parsing instead of 0.85 s.

Memory: orjson builds its own C tree of a document before the Python one, so
one ``orjson.loads`` of a 94 MB database held ~150 MB more at its peak, and
the proof's encoding another copy of the file. Both now go one top-level
member, one talk at a time (:func:`_loads_members`, :func:`artifact_pieces`):
``rvault-db read`` of 10,000 realistic talks (94 MB) peaks at 344 MB instead
of 484 MB, for about 0.06 s more CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
from rvault_contracts.strict_json import MAX_DEPTH, loads_strict

from rvault_tracking_db.collector import collector_paused

__all__ = ["collector_paused", "decode_artifact_exact", "decode_database"]

_ARTIFACT_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_DEEP_LINE = b"\n" + b" " * (2 * MAX_DEPTH)


def decode_artifact_exact(data: bytes) -> dict[str, Any] | None:
    """The strict value of ``data`` if it is exactly an artifact encoding, else None.

    None means "not proven", never "invalid": the caller then decodes with
    ``loads_strict``, which decides.
    """
    if data == b"{}\n":
        return {}
    if not data.startswith(b"{\n") or not data.endswith(b"\n}\n") or _DEEP_LINE in data:
        return None
    try:
        value = _loads_members(data)
    except (orjson.JSONDecodeError, ValueError):
        return None
    position = 0
    try:
        for piece in artifact_pieces(value):
            # startswith compares in place: slicing the file would copy it.
            if not data.startswith(piece, position):
                return None
            position += len(piece)
    except orjson.JSONEncodeError:
        return None
    if position + 1 != len(data):
        return None
    return value


_MEMBER = b'\n  "'
# An item of a list member begins at four spaces; deeper lines have more.
_ITEM = re.compile(rb",\n    (?! )")
_LIST_END = b"\n  ]"


def _loads_members(data: bytes) -> dict[str, Any]:
    """Parse an indented top-level object member by member, a top-level list item by item.

    orjson parses a document into a C tree before building Python objects,
    about 1.5x the input while it lasts; parsing one talk at a time keeps that
    to one talk. Where the bytes are laid out as the artifact encoding lays
    them out (members at two spaces, list items at four), the slices are
    exactly its members and items; anything else raises or gives a value the
    proof that follows rejects, so how the value was obtained never matters.
    """
    view = memoryview(data)
    value: dict[str, Any] = {}
    start = data.find(_MEMBER, 0)
    while start != -1:
        quote = _closing_quote(data, start + 3)
        if not data.startswith(b": ", quote + 1):
            raise ValueError("not a member")
        key = orjson.loads(view[start + 3 : quote + 1])
        following = data.find(_MEMBER, quote)
        end = len(data) - 3 if following == -1 else following - 1  # before "," or "\n}"
        value[key] = _loads_value(data, view, quote + 3, end)
        start = following
    return value


def _closing_quote(data: bytes, opening: int) -> int:
    """Where the JSON string that opens at ``data[opening]`` ends (its unescaped quote)."""
    quote = data.index(b'"', opening + 1)
    while True:
        before = quote - 1
        while data[before] == 0x5C:  # backslash
            before -= 1
        if (quote - 1 - before) % 2 == 0:
            return quote
        quote = data.index(b'"', quote + 1)


def _loads_value(data: bytes, view: memoryview, start: int, end: int) -> Any:
    """The member value in ``data[start:end]``; a non-empty list item by item."""
    if not data.startswith(b"[\n    ", start) or not data.startswith(_LIST_END, end - 4):
        return orjson.loads(view[start:end])
    items = []
    position = start + 6
    for separator in _ITEM.finditer(data, position, end):
        items.append(orjson.loads(view[position : separator.start()]))
        position = separator.end()
    items.append(orjson.loads(view[position : end - 4]))
    return items


# Containers this deep and shallower are opened piece by piece; deeper values
# (one talk, the config) are encoded whole. The proof then never holds more
# than one talk's encoding next to the file and its decoded tree, instead of
# a second copy of the whole file (94 MB for 10,000 talks).
_SPLIT_DEPTH = 2


def artifact_pieces(value: Any, depth: int = 0) -> Iterator[bytes]:
    """The artifact encoding of ``value`` nested at ``depth``, in consecutive pieces.

    Joined, the pieces are exactly ``orjson.dumps(value, OPT_INDENT_2 |
    OPT_SORT_KEYS)`` with every line after the first indented by ``depth``
    levels, i.e. the bytes orjson writes for the whole document: keys sorted
    by code point, two spaces per level, ``{}``/``[]`` for empty containers.
    A nested encoding is re-indented by prefixing its lines, which is safe
    because a raw newline cannot occur inside a JSON string.
    """
    if depth >= _SPLIT_DEPTH or not value or type(value) not in (dict, list):
        encoded = orjson.dumps(value, option=_ARTIFACT_OPTIONS)
        yield encoded.replace(b"\n", b"\n" + b"  " * depth) if depth else encoded
        return
    inner = b"\n" + b"  " * (depth + 1)
    if type(value) is dict:
        yield b"{"
        for index, key in enumerate(sorted(value)):
            yield (b"," if index else b"") + inner + orjson.dumps(key) + b": "
            yield from artifact_pieces(value[key], depth + 1)
        yield b"\n" + b"  " * depth + b"}"
    else:
        yield b"["
        for index, item in enumerate(value):
            yield (b"," if index else b"") + inner
            yield from artifact_pieces(item, depth + 1)
        yield b"\n" + b"  " * depth + b"]"


def decode_database(data: bytes) -> dict[str, Any]:
    """Strictly decode database bytes (raises ``StrictJSONError`` like ``loads_strict``)."""
    with collector_paused():
        value = decode_artifact_exact(data)
        if value is None:
            value = loads_strict(data)
    return value
