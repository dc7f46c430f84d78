"""Strict decoding of the database, fast when it is stored as a known writer lays it out.

Every toolkit writer stores the database in the artifact encoding of
``rvault_contracts.canonical`` (sorted keys, two-space indent, UTF-8, final
LF). For such bytes a much cheaper proof gives exactly the value the strict
decoder would: orjson parses the bytes, and the bytes must then be *equal* to
the encoding of what it parsed. Equality rules out, without looking at a
single token:

- duplicate keys (an encoded dict cannot repeat one);
- numbers that would change when written back (each literal is the shortest
  round-trip form of the double it denotes; integers beyond 64 bits come back
  from orjson as floats and so cannot match);
- ``\\u`` surrogate escapes (orjson refuses lone ones; an escaped pair is
  only proven where the layout escapes every non-ASCII character, and then
  denotes the character the strict decoder gives), invalid UTF-8, a BOM, NaN;
- nesting deeper than the strict limit, given one substring check per piece
  with more brackets than the limit allows: in the indented form a container
  at depth ``d`` puts its members at indent ``2d`` and an empty one sits at
  ``2(d - 1)``, so with no line indented by ``2 * MAX_DEPTH`` spaces no
  container is deeper than ``MAX_DEPTH`` (newlines only occur between
  tokens; a JSON string cannot hold one).

The proof is the same for every :class:`Layout`; a layout names its framing
bytes (what opens and separates the members and the list items) and the
encoding of one piece. The indented layouts (the artifact's, and other
writers' with keys as written) find the pieces by their lines; a compact one
(``jq -c``, ``json.dumps`` with default or tight separators, UTF-8 or
ASCII-escaped) by where orjson says content follows a value. Either is a
hint: the pieces must tile the bytes and each be its own encoding, so a
wrong boundary can only leave the bytes unproven.

Anything else (a hand-edited file, a float orjson spells differently, an
invalid document) falls back to :func:`rvault_contracts.strict_json.loads_strict`,
which is the definition and produces the exact error code and path. On the
10,000-talk benchmark database this is 0.25 s of parsing instead of 0.85 s.

Memory: orjson builds its own C tree of a document before the Python one
(about 1.5x the input while it lasts), and a proof by one encoding of the
whole value would hold a second copy of the file. So the proof goes piece by
piece: the top-level members one at a time, a top-level list (the talks) one
item at a time, each slice parsed and compared with its own encoding at its
depth, while the framing between the slices (member headers, item
separators) is checked as bytes. :func:`stream_database` goes further and
hands the talks out one at a time, so a reader that does not keep them
(``rvault-db read``) never holds the decoded tree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from rvault_contracts.strict_json import MAX_DEPTH, loads_strict

from rvault_tracking_db.collector import collector_paused

__all__ = [
    "ARTIFACT",
    "COMPACT_LAYOUTS",
    "WRITTEN_ORDER",
    "DatabaseStream",
    "Layout",
    "NotProven",
    "collector_paused",
    "decode_artifact_exact",
    "decode_database",
    "layout_of",
    "stream_database",
]

STREAMED_MEMBER = "talks"
# A top-level key line in the indented layouts (only a key is indented by two).
_MEMBER = b'\n  "'
# An item of a list member begins at four spaces; deeper lines have more.
_ITEM = re.compile(rb",\n    (?! )")
_INDENTED_LIST_END = b"\n  ]"
# orjson's window for a compact value's end grows from here (a realistic talk
# is about 6 KB; parsing costs time in the window's size, not the value's).
_FIRST_WINDOW = 1 << 14


class NotProven(Exception):
    """The bytes are not (provably) an encoding of their value: ``loads_strict`` decides."""


@dataclass(frozen=True)
class Layout:
    """How a writer lays out the database: its framing bytes and one piece's encoding.

    ``encode(value, depth)`` is the bytes the writer gives ``value`` placed
    at container depth ``depth`` below the root (1: a member's value, 2: an
    item of a member's list, 0: a key). Members sit between ``opening`` and
    ``closing`` (a compact file may also end in one LF), separated by
    ``member_separator``, each ``key`` + ``key_separator`` + value; a
    non-empty list value is ``list_opening``, items separated by
    ``item_separator``, ``list_closing``.
    """

    name: str
    encode: Callable[[Any, int], bytes]
    opening: bytes
    closing: bytes
    member_separator: bytes
    key_separator: bytes
    list_opening: bytes
    item_separator: bytes
    list_closing: bytes
    sorted_keys: bool = False

    @property
    def indented(self) -> bool:
        return self.opening.startswith(b"{\n")


def _orjson_encoder(options: int | None, indent: bool) -> Callable[[Any, int], bytes]:
    def encode(value: Any, depth: int) -> bytes:
        encoded = _dumps(value, options)
        return encoded.replace(b"\n", b"\n" + b"  " * depth) if indent else encoded

    return encode


def _python_encoder(separators: tuple[str, str], ensure_ascii: bool) -> Callable[[Any, int], bytes]:
    """``json.dumps(value, separators=..., ensure_ascii=...)``: the stdlib's C encoder."""
    encoder = json.JSONEncoder(separators=separators, ensure_ascii=ensure_ascii)

    def encode(value: Any, depth: int) -> bytes:
        return encoder.encode(value).encode()

    return encode


def _indented(name: str, options: int, sorted_keys: bool) -> Layout:
    return Layout(
        name, _orjson_encoder(options, True), b"{\n  ", b"\n}\n", b",\n  ", b": ",
        b"[\n    ", b",\n    ", _INDENTED_LIST_END, sorted_keys,
    )  # fmt: skip


def _compact(name: str, encode: Callable[[Any, int], bytes], item: bytes, key: bytes) -> Layout:
    return Layout(name, encode, b"{", b"}", item, key, b"[", item, b"]")


ARTIFACT = _indented("artifact", orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS, sorted_keys=True)
# The same layout with keys in the order they were written: what
# ``json.dumps(value, indent=2, ensure_ascii=False)`` gives, the public
# peer's database writer (a vault brought over from it reads as one).
WRITTEN_ORDER = _indented("written order", orjson.OPT_INDENT_2, sorted_keys=False)
# One line, keys as written, keyed by (spaced separators, ASCII-escaped):
# ``jq -c .``, orjson and ``json.dumps(separators=(",", ":"), ensure_ascii=False)``
# write the first (orjson spells it the fastest); ``json.dumps`` the others.
COMPACT_LAYOUTS: dict[tuple[bool, bool], Layout] = {
    (False, False): _compact("compact", _orjson_encoder(None, False), b",", b":"),
    (False, True): _compact("compact ASCII", _python_encoder((",", ":"), True), b",", b":"),
    (True, False): _compact("spaced", _python_encoder((", ", ": "), False), b", ", b": "),
    (True, True): _compact("spaced ASCII", _python_encoder((", ", ": "), True), b", ", b": "),
}


@dataclass
class DatabaseStream:
    """A proven-as-it-goes database whose talks are decoded one at a time.

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
            for key, value in _members(data, ARTIFACT)
        }
    except NotProven:
        return None


def layout_of(data: bytes) -> Layout | None:
    """The layout ``data`` claims by its first member (the proof then holds it to it)."""
    if data == b"{}\n" or data.startswith(b'{\n  "'):
        return WRITTEN_ORDER
    if not data.startswith(b'{"'):
        return None
    try:
        quote = _closing_quote(data, 1)
    except NotProven:
        return None
    # A writer that escapes every non-ASCII character escapes DEL too.
    escaped = data.isascii() and b"\x7f" not in data
    return COMPACT_LAYOUTS[data.startswith(b'": ', quote), escaped]


def stream_database(data: bytes) -> DatabaseStream | None:
    """``data`` as a :class:`DatabaseStream`, or None when its layout rules it out.

    Every top-level list but the talks is decoded here (they are small); the
    talks are decoded and proven only as the stream is read. Keys may come in
    any order, as long as every piece is its own encoding in that order (the
    proof needs no sorting: a dropped duplicate or a respelled value still
    changes the bytes), so other writers' layouts stream too.
    """
    layout = layout_of(data)
    if layout is None:
        return None
    members: dict[str, Any] = {}
    talks: Iterator[Any] = iter(())
    try:
        for key, value in _members(data, layout):
            if isinstance(value, Iterator) and key == STREAMED_MEMBER:
                members[key], talks = [], value
            else:
                members[key] = list(value) if isinstance(value, Iterator) else value
    except NotProven:
        return None
    return DatabaseStream(members, talks)


def _members(data: bytes, layout: Layout) -> Iterator[tuple[str, Any]]:
    """The top-level members in file order, each value proven (lists lazily).

    A member whose value is a non-empty list comes as an iterator of its
    proven items (their bounds are found before the next member is). Each
    header must be exactly what the layout writes, each key once (in
    strictly increasing order where the layout sorts keys), and headers,
    values and separators must tile the bytes between the braces.
    """
    position, end_of_members = _members_span(data, layout)
    if position == end_of_members:
        return
    view = memoryview(data)
    previous: str | None = None
    seen: set[str] = set()
    while True:
        key, start = _header(data, view, position, layout)
        if key in seen or (layout.sorted_keys and previous is not None and key <= previous):
            raise NotProven
        if data.startswith(layout.list_opening, start) and not data.startswith(b"[]", start):
            spans, end = _item_spans(data, view, start + len(layout.list_opening), layout)
            yield key, (_proven(data, view, span, 2, layout) for span in spans)
        else:
            end = _value_end(data, view, start, layout, end_of_members)
            yield key, _proven(data, view, (start, end), 1, layout)
        if end == end_of_members:
            return
        if not data.startswith(layout.member_separator, end):
            raise NotProven
        seen.add(key)
        previous, position = key, end + len(layout.member_separator)


def _members_span(data: bytes, layout: Layout) -> tuple[int, int]:
    """Where the members lie between the layout's braces (an empty span for ``{}``)."""
    if data == b"{}\n":
        return 0, 0
    closing = layout.closing
    if not layout.indented and data.endswith(b"\n"):
        closing += b"\n"  # a compact writer may end the file with a newline
    if not data.startswith(layout.opening) or not data.endswith(closing):
        raise NotProven
    return len(layout.opening), len(data) - len(closing)


def _header(data: bytes, view: memoryview, position: int, layout: Layout) -> tuple[str, int]:
    """The key whose header starts at ``position`` and where its value starts.

    The header must be exactly the layout's encoding of the key it parses
    to, followed by the key separator.
    """
    if not data.startswith(b'"', position):
        raise NotProven
    quote = _closing_quote(data, position)
    key = _loads(view[position : quote + 1])
    if not isinstance(key, str):
        raise NotProven
    header = layout.encode(key, 0) + layout.key_separator
    if len(header) != quote + 1 + len(layout.key_separator) - position or not data.startswith(
        header, position
    ):
        raise NotProven
    return key, position + len(header)


def _value_end(
    data: bytes, view: memoryview, start: int, layout: Layout, end_of_members: int
) -> int:
    """Where a member's value that starts at ``start`` ends (a hint the proof checks).

    Indented: before the next key line's comma (only a top-level key line
    is indented by two), or at the closing brace.
    """
    if not layout.indented:
        return _parsed_end(data, view, start, _FIRST_WINDOW)
    following = data.find(_MEMBER, start)
    return end_of_members if following == -1 else following - 1


def _item_spans(
    data: bytes, view: memoryview, start: int, layout: Layout
) -> tuple[list[tuple[int, int]], int]:
    """The bounds of a list member's items from ``start``, and where the list ends.

    Indented: items begin at four spaces and the list closes at two; compact:
    each item ends where orjson says content follows it. Hints either way:
    each item is proven when the caller reads it.
    """
    spans: list[tuple[int, int]] = []
    if layout.indented:
        closing = data.find(_INDENTED_LIST_END, start)
        if closing == -1:
            raise NotProven
        for separator in _ITEM.finditer(data, start, closing):
            spans.append((start, separator.start()))
            start = separator.end()
        spans.append((start, closing))
        return spans, closing + len(_INDENTED_LIST_END)
    window = _FIRST_WINDOW
    while True:
        end = _parsed_end(data, view, start, window)
        spans.append((start, end))
        if data.startswith(layout.list_closing, end):
            return spans, end + len(layout.list_closing)
        if not data.startswith(layout.item_separator, end):
            raise NotProven
        window = max(_FIRST_WINDOW, 2 * (end - start))
        start = end + len(layout.item_separator)


def _parsed_end(data: bytes, view: memoryview, start: int, window: int) -> int:
    """Where the JSON value that opens at ``data[start]`` ends, by orjson's parse.

    orjson parses a window of the bytes (growing it while the value runs
    past it) and reports where content follows the value, in characters.
    Only a hint: the caller proves the piece it bounds.
    """
    size = len(data)
    while True:
        stop = min(size, start + window)
        while stop < size and data[stop] & 0xC0 == 0x80:  # not inside a character
            stop -= 1
        try:
            orjson.loads(view[start:stop])
        except orjson.JSONDecodeError as error:
            if "content after document" in error.msg:
                return start + _byte_count(data, start, stop, error.pos)
            if stop == size:
                raise NotProven from None
            window *= 4
            continue
        return stop


def _byte_count(data: bytes, start: int, stop: int, characters: int) -> int:
    """How many bytes the first ``characters`` characters from ``start`` take (UTF-8)."""
    prefix = data[start : min(stop, start + 4 * characters)]
    if prefix.isascii():
        return characters
    return len(prefix.decode("utf-8", "ignore")[:characters].encode())


def _proven(
    data: bytes, view: memoryview, span: tuple[int, int], depth: int, layout: Layout
) -> Any:
    """The value in ``data[start:end]``, which must be its own encoding at ``depth``."""
    start, end = span
    value = _loads(view[start:end])
    encoded = layout.encode(value, depth)
    # startswith compares in place: slicing the file would copy it.
    if (
        len(encoded) != end - start
        or not data.startswith(encoded, start)
        or _maybe_too_deep(data, span, value, depth)
    ):
        raise NotProven
    return value


def _maybe_too_deep(data: bytes, span: tuple[int, int], value: Any, depth: int) -> bool:
    """Whether the piece at ``depth`` may nest past ``MAX_DEPTH`` (never when it may not).

    A piece with no more brackets than levels left cannot; otherwise its
    indented form has a line at the limit's indent when it may.
    """
    start, end = span
    levels = MAX_DEPTH - depth
    if data.count(b"[", start, end) + data.count(b"{", start, end) <= levels:
        return False
    return b"\n" + b"  " * levels in _dumps(value, orjson.OPT_INDENT_2)


def _loads(piece: memoryview) -> Any:
    try:
        return orjson.loads(piece)
    except orjson.JSONDecodeError:
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


def _dumps(value: Any, option: int | None = None) -> bytes:
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        raise NotProven from None


def decode_database(data: bytes) -> dict[str, Any]:
    """Strictly decode database bytes (raises ``StrictJSONError`` like ``loads_strict``)."""
    with collector_paused():
        value = decode_artifact_exact(data)
        if value is None:
            value = loads_strict(data)
    return value
