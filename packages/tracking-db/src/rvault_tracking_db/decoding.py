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

Memory: orjson builds its own C tree of a document before the Python one
(about 1.5x the input while it lasts), and a proof by one encoding of the
whole value would hold a second copy of the file. So the proof goes piece by
piece: the top-level members one at a time, a top-level list (the talks) one
item at a time, each slice parsed and compared with its own encoding at its
depth, while the framing between the slices (member headers in sorted key
order, item separators) is checked as bytes. :func:`stream_database` goes
further and hands the talks out one at a time, so a reader that does not
keep them (``rvault-db read``) never holds the decoded tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from rvault_contracts.strict_json import MAX_DEPTH, loads_strict

from rvault_tracking_db.collector import collector_paused

__all__ = [
    "DatabaseStream",
    "NotProven",
    "collector_paused",
    "decode_artifact_exact",
    "decode_database",
    "stream_database",
]

_ARTIFACT_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
# The same layout with keys in the order they were written: what
# ``json.dumps(value, indent=2, ensure_ascii=False)`` gives, the public
# peer's database writer (a vault brought over from it reads as one).
_WRITTEN_ORDER_OPTIONS = orjson.OPT_INDENT_2
_DEEP_LINE = b"\n" + b" " * (2 * MAX_DEPTH)
_MEMBER = b'\n  "'
# An item of a list member begins at four spaces; deeper lines have more.
_ITEM = re.compile(rb",\n    (?! )")
_LIST_START = b"[\n    "
_LIST_END = b"\n  ]"
STREAMED_MEMBER = "talks"


class NotProven(Exception):
    """The bytes are not (provably) an artifact encoding: ``loads_strict`` decides."""


@dataclass
class DatabaseStream:
    """A proven-as-it-goes artifact database whose talks are decoded one at a time.

    ``members`` holds every top-level member, the talks as an empty list in
    their place; ``talks`` yields each talk once its bytes are proven and
    raises :class:`NotProven` at the first that is not. The document is
    proven only when ``talks`` is exhausted.
    """

    members: dict[str, Any]
    talks: Iterator[Any]


def decode_artifact_exact(data: bytes) -> dict[str, Any] | None:
    """The strict value of ``data`` if it is exactly an artifact encoding, else None.

    None means "not proven", never "invalid": the caller then decodes with
    ``loads_strict``, which decides.
    """
    try:
        return {
            key: list(value) if isinstance(value, Iterator) else value
            for key, value in _members(data)
        }
    except NotProven:
        return None


def stream_database(data: bytes) -> DatabaseStream | None:
    """``data`` as a :class:`DatabaseStream`, or None when its layout rules it out.

    Every top-level list but the talks is decoded here (they are small); the
    talks are decoded and proven only as the stream is read. Keys may come in
    any order, as long as every piece is its own encoding in that order (the
    proof needs no sorting: a dropped duplicate or a respelled value still
    changes the bytes), so the indented layout of other writers streams too.
    """
    members: dict[str, Any] = {}
    talks: Iterator[Any] = iter(())
    try:
        for key, value in _members(data, _WRITTEN_ORDER_OPTIONS):
            if isinstance(value, Iterator) and key == STREAMED_MEMBER:
                members[key], talks = [], value
            else:
                members[key] = list(value) if isinstance(value, Iterator) else value
    except NotProven:
        return None
    return DatabaseStream(members, talks)


def _members(data: bytes, options: int = _ARTIFACT_OPTIONS) -> Iterator[tuple[str, Any]]:
    """The top-level members in file order, each value proven (lists lazily).

    A member whose value is laid out as a non-empty list (``[``, items at
    four spaces, ``]`` at two) comes as an iterator of its proven items.
    Members are found by the lines indented two spaces that open a string
    (only a top-level key can be one in the artifact layout); each header
    must be exactly what the encoding writes, each key once (in strictly
    increasing order when ``options`` sort keys), and the values must tile
    the bytes between ``{`` and ``}``.
    """
    if data == b"{}\n":
        return
    if not data.startswith(b"{\n") or not data.endswith(b"\n}\n") or _DEEP_LINE in data:
        raise NotProven
    view = memoryview(data)
    position, previous = 1, None
    seen: set[str] = set()
    sorting = bool(options & orjson.OPT_SORT_KEYS)
    start = data.find(_MEMBER, 0)
    if start != 1:
        raise NotProven
    while start != -1:
        quote = _closing_quote(data, start + 3)
        key = _loads(view[start + 3 : quote + 1])
        header = (b"," if previous is not None else b"") + b"\n  " + _dumps(key) + b": "
        if (
            not isinstance(key, str)
            or key in seen
            or (sorting and previous is not None and key <= previous)
            or position + len(header) != quote + 3
            or not data.startswith(header, position)
        ):
            raise NotProven
        following = data.find(_MEMBER, quote)
        end = len(data) - 3 if following == -1 else following - 1  # before "," or "\n}"
        if data.startswith(_LIST_START, quote + 3) and data.startswith(_LIST_END, end - 4):
            span = (quote + 3 + len(_LIST_START), end - len(_LIST_END))
            yield key, _items(data, view, span, options)
        else:
            yield key, _proven(data, view, (quote + 3, end), 1, options)
        seen.add(key)
        position, previous, start = end, key, following
    if position != len(data) - 3:
        raise NotProven


def _items(data: bytes, view: memoryview, span: tuple[int, int], options: int) -> Iterator[Any]:
    """The items of a list member laid out in ``data[start:end]``, each proven."""
    position, end = span
    for separator in _ITEM.finditer(data, position, end):
        yield _proven(data, view, (position, separator.start()), 2, options)
        position = separator.end()
    yield _proven(data, view, (position, end), 2, options)


def _proven(data: bytes, view: memoryview, span: tuple[int, int], depth: int, options: int) -> Any:
    """The value in ``data[start:end]``, which must be its own encoding at ``depth``."""
    start, end = span
    value = _loads(view[start:end])
    encoded = _dumps(value, options).replace(b"\n", b"\n" + b"  " * depth)
    # startswith compares in place: slicing the file would copy it.
    if len(encoded) != end - start or not data.startswith(encoded, start):
        raise NotProven
    return value


def _loads(piece: memoryview) -> Any:
    try:
        return orjson.loads(piece)
    except orjson.JSONDecodeError:
        raise NotProven from None


def _dumps(value: Any, option: int | None = None) -> bytes:
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        raise NotProven from None


def _closing_quote(data: bytes, opening: int) -> int:
    """Where the JSON string that opens at ``data[opening]`` ends (its unescaped quote)."""
    try:
        quote = data.index(b'"', opening + 1)
        while True:
            before = quote - 1
            while data[before] == 0x5C:  # backslash
                before -= 1
            if (quote - 1 - before) % 2 == 0:
                return quote
            quote = data.index(b'"', quote + 1)
    except ValueError:
        raise NotProven from None


def decode_database(data: bytes) -> dict[str, Any]:
    """Strictly decode database bytes (raises ``StrictJSONError`` like ``loads_strict``)."""
    with collector_paused():
        value = decode_artifact_exact(data)
        if value is None:
            value = loads_strict(data)
    return value
